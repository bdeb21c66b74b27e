#include "llm/reply/phrases.hpp"

#include <algorithm>

namespace warpforge::llm::phrases {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

bool all_space(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_space);
}

} // namespace

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::vector<word> words_of(std::string_view text) {
  std::vector<word> out;
  std::size_t previous_end = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_char(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && is_word_char(text[i]))
      ++i;
    const bool space = !out.empty() && all_space(text.substr(previous_end, start - previous_end));
    out.push_back({start, text.substr(start, i - start), space});
    previous_end = i;
  }
  return out;
}

std::optional<match> find_phrase(std::string_view text, const std::vector<word>& words,
                                 const std::vector<phrase>& alternatives) {
  for (std::size_t first = 0; first < words.size(); ++first)
    for (const auto& candidate : alternatives) {
      const auto& wanted = candidate.words;
      if (wanted.empty() || first + wanted.size() > words.size())
        continue;
      bool matched = true;
      for (std::size_t k = 0; k < wanted.size() && matched; ++k) {
        const auto& got = words[first + k];
        const bool last = k + 1 == wanted.size();
        matched = (k == 0 || got.space_before) &&
                  (last && candidate.last_is_prefix ? got.text.starts_with(wanted[k]) : got.text == wanted[k]);
      }
      if (!matched)
        continue;
      const auto& end_word = words[first + wanted.size() - 1];
      const std::size_t end = end_word.offset + (candidate.last_is_prefix ? wanted.back().size() : end_word.text.size());
      return match{words[first].offset, std::string{text.substr(words[first].offset, end - words[first].offset)}};
    }
  return std::nullopt;
}

std::vector<match> words_starting_with(std::string_view text, const std::vector<std::string_view>& prefixes) {
  std::vector<match> out;
  for (const auto& w : words_of(text))
    if (std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return w.text.starts_with(p); }))
      out.push_back({w.offset, std::string{w.text}});
  return out;
}

std::size_t skip_space(std::string_view text, std::size_t at) {
  while (at < text.size() && is_space(text[at]))
    ++at;
  return at;
}

} // namespace warpforge::llm::phrases
