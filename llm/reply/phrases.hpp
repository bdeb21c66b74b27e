#pragma once
// Word-level matching on model-written text, in one pass and without recursion: the text is cut
// into words (runs of A-Z a-z 0-9 _, what \b and \w mean in a regex) and the gaps between them,
// and a phrase is a sequence of words separated by whitespace only ("rest of the code").
// It replaced std::regex here: libstdc++'s regex recurses once per character it repeats over, so
// a reply holding a comment of 60,000 spaces overflowed the stack and took the coordinator down
// (issue 22). Internal to llm/reply (code_check.cpp, source_text.cpp).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm::phrases {

/// Whether `c` is a word character (A-Z a-z 0-9 _).
bool is_word_char(char c);

struct word {
  std::size_t offset = 0;   // of its first character in the text
  std::string_view text;
  bool space_before = false; // what separates it from the previous word is whitespace only (and
                             // not empty); false for the first word
};

/// The words of `text`, in order; views into `text`.
std::vector<word> words_of(std::string_view text);

/// One phrase: its words; with `last_is_prefix`, the last word need only start with the last
/// entry ("before" matches "beforehand").
struct phrase {
  std::vector<std::string_view> words;
  bool last_is_prefix = false;
};

struct match {
  std::size_t offset = 0; // of the phrase's first character in the text
  std::string text;       // the matched text, first word to the end of the last (or its prefix)
};

/// The first place (by offset) where any of `alternatives` occurs in `words` (taken from
/// `text`), or nullopt. O(words x phrase length x alternatives).
std::optional<match> find_phrase(std::string_view text, const std::vector<word>& words,
                                 const std::vector<phrase>& alternatives);

/// Every word of `text` that starts with one of `prefixes`, with its offset.
std::vector<match> words_starting_with(std::string_view text, const std::vector<std::string_view>& prefixes);

/// Skips whitespace (space, tab, CR, LF, FF, VT) from `at`; returns the first other offset.
std::size_t skip_space(std::string_view text, std::size_t at);

} // namespace warpforge::llm::phrases
