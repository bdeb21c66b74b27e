#include "gpu/compile/file_references.hpp"

#include <algorithm>
#include <span>

namespace warpforge::gpu {

std::string_view to_string(scan_fault fault) {
  switch (fault) {
  case scan_fault::unterminated_comment: return "unterminated_comment";
  case scan_fault::unterminated_raw_string: return "unterminated_raw_string";
  case scan_fault::malformed_raw_string: return "malformed_raw_string";
  case scan_fault::raw_string_with_splice: return "raw_string_with_splice";
  }
  return "unterminated_comment";
}

std::string_view describe(scan_fault fault) {
  switch (fault) {
  case scan_fault::unterminated_comment:
    return "a /* comment that never ends: a compiler recovering from it may read the lines after it";
  case scan_fault::unterminated_raw_string:
    return "a raw string literal that never ends: a compiler recovering from it may read the lines after it";
  case scan_fault::malformed_raw_string:
    return "a raw string literal whose delimiter is not at most 16 characters followed by '('";
  case scan_fault::raw_string_with_splice:
    return "a raw string literal holding a line splice (backslash-newline) or a trigraph, which "
           "compilers read differently there; write it without one";
  }
  return "";
}

namespace {

// The source after phases 1 and 2, with the way back to offsets in the source as given.
class logical_text {
public:
  logical_text(std::string_view source, bool trigraphs) {
    text_.reserve(source.size());
    std::size_t i = 0;
    while (i < source.size()) {
      const auto [c, length] = phase_one(source, i, trigraphs);
      if (c == '\\') {
        std::size_t after = i + length;
        if (after < source.size() && source[after] == '\r')
          ++after;
        if (after < source.size() && source[after] == '\n') {
          i = after + 1;
          mark(i);
          continue;
        }
      }
      text_ += c;
      i += length;
      if (length != 1)
        mark(i);
    }
  }

  const std::string& text() const { return text_; }

  // The offset in the source of the logical character at `at`.
  std::size_t original(std::size_t at) const {
    const auto after = std::upper_bound(shifts_.begin(), shifts_.end(), at,
                                        [](std::size_t value, const shift& s) { return value < s.logical; });
    if (after == shifts_.begin())
      return at;
    const auto& s = *std::prev(after);
    return s.original + (at - s.logical);
  }

  // Whether phases 1 and 2 changed anything between logical offsets [from, to).
  bool changed_within(std::size_t from, std::size_t to) const {
    const auto first = std::upper_bound(shifts_.begin(), shifts_.end(), from,
                                        [](std::size_t value, const shift& s) { return value < s.logical; });
    return first != shifts_.end() && first->logical < to;
  }

private:
  struct shift {
    std::size_t logical;  // from this logical offset on...
    std::size_t original; // ...the source offset is this plus the distance
  };

  // The character at `i` after phase 1 and how many source bytes it takes.
  static std::pair<char, std::size_t> phase_one(std::string_view source, std::size_t i, bool trigraphs) {
    if (trigraphs && source[i] == '?' && i + 2 < source.size() && source[i + 1] == '?') {
      constexpr std::string_view from = "=/'()!<>-";
      constexpr std::string_view to = "#\\^[]|{}~";
      if (const auto at = from.find(source[i + 2]); at != std::string_view::npos)
        return {to[at], 3};
    }
    return {source[i], 1};
  }

  void mark(std::size_t original) { shifts_.push_back({text_.size(), original}); }

  std::string text_;
  std::vector<shift> shifts_; // ascending in logical; one per splice or trigraph
};

bool is_identifier_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == '$' || u >= 0x80;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }
// Whitespace inside a line (a directive ends at a newline).
bool is_line_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

constexpr std::array<std::string_view, 4> file_directives{"include", "include_next", "import", "embed"};
constexpr std::array<std::string_view, 3> file_operators{"__has_include", "__has_include_next", "__has_embed"};

bool one_of(std::string_view word, std::span<const std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// A piece of a file operator that ## could complete ("__has_", "__has_inc"): refused, since the
// pasted operator would not be seen here.
bool operator_piece(std::string_view word) {
  if (word.size() < 5)
    return false;
  return std::any_of(file_operators.begin(), file_operators.end(), [&](std::string_view name) {
    return name.size() > word.size() && name.starts_with(word);
  });
}

std::string shortened(std::string_view text) {
  if (text.size() <= max_quoted_bytes)
    return std::string{text};
  return std::string{text.substr(0, max_quoted_bytes - 3)} + "...";
}

class scanner {
public:
  scanner(const logical_text& logical, source_reading reading)
      : logical_(logical), text_(logical.text()), reading_(reading) {}

  file_references run() {
    std::size_t i = 0;
    while (i < text_.size() && !out_.problem)
      i = step(i);
    return std::move(out_);
  }

private:
  char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  void fail(scan_fault fault, std::size_t logical_offset) {
    out_.problem = scan_problem{fault, logical_.original(logical_offset)};
  }

  // Lexes the token at `i`; returns where the next one may start.
  std::size_t step(std::size_t i) {
    const char c = text_[i];
    if (c == '/' && at(i + 1) == '/')
      return std::min(text_.find('\n', i), text_.size());
    if (reading_.literals && c == '/' && at(i + 1) == '*')
      return block_comment_end(i);
    if (reading_.literals && (c == '"' || c == '\''))
      return quoted_end(i, c);
    if (is_digit(c) || (c == '.' && is_digit(at(i + 1))))
      return number_end(i);
    if (is_identifier_start(c))
      return after_identifier(i);
    if (c == '#')
      return at(i + 1) == '#' ? i + 2 : after_hash(i, i + 1);
    if (c == '%' && at(i + 1) == ':')
      return at(i + 2) == '%' && at(i + 3) == ':' ? i + 4 : after_hash(i, i + 2);
    return i + 1;
  }

  std::size_t block_comment_end(std::size_t i) {
    const std::size_t close = text_.find("*/", i + 2);
    if (close == std::string::npos) {
      if (reading_.literals) // the blind pass leaves faults to the readings that lex
        fail(scan_fault::unterminated_comment, i);
      return text_.size();
    }
    return close + 2;
  }

  // A string or character literal ends at its unescaped quote or, unterminated, at the newline
  // (so it can never hide a later line).
  std::size_t quoted_end(std::size_t i, char quote) const {
    std::size_t j = i + 1;
    while (j < text_.size() && text_[j] != quote && text_[j] != '\n')
      j += text_[j] == '\\' && at(j + 1) != '\n' ? 2 : 1;
    return j < text_.size() && text_[j] == quote ? j + 1 : std::min(j, text_.size());
  }

  // A pp-number: digits, identifier characters, '.', e+ e- p+ p-, and 'x digit separators.
  std::size_t number_end(std::size_t i) const {
    std::size_t j = i + 1;
    while (j < text_.size()) {
      const char c = text_[j];
      const char previous = text_[j - 1];
      if (is_identifier_char(c) || c == '.')
        ++j;
      else if ((c == '+' || c == '-') && (previous == 'e' || previous == 'E' || previous == 'p' || previous == 'P'))
        ++j;
      else if (c == '\'' && reading_.digit_separators && is_identifier_char(at(j + 1)))
        j += 2;
      else
        break;
    }
    return j;
  }

  std::size_t after_identifier(std::size_t i) {
    std::size_t end = i;
    while (end < text_.size() && is_identifier_char(text_[end]))
      ++end;
    const std::string_view word = std::string_view{text_}.substr(i, end - i);
    if (at(end) == '"' && reading_.literals && reading_.raw_strings &&
        (word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R"))
      return raw_string_end(i, end);
    if (one_of(word, file_operators))
      return after_operator(i, end, word);
    if (operator_piece(word)) {
      record(word, false, i, false, std::string{word});
      return end;
    }
    if (word == "import") {
      const std::size_t target = skip_space(end, false);
      if (at(target) == '"' || at(target) == '<')
        return after_target(i, target, word, false);
    }
    return end;
  }

  // R"delim( ... )delim": the delimiter is at most 16 characters, none of them space, '(', ')'
  // or backslash.
  std::size_t raw_string_end(std::size_t start, std::size_t quote) {
    std::size_t open = quote + 1;
    while (open < text_.size() && open - quote - 1 <= 16 && text_[open] != '(') {
      const char c = text_[open];
      if (c == ' ' || c == ')' || c == '\\' || c == '\n' || is_line_space(c))
        break;
      ++open;
    }
    if (at(open) != '(' || open - quote - 1 > 16) {
      fail(scan_fault::malformed_raw_string, start);
      return text_.size();
    }
    const std::string closing = ")" + text_.substr(quote + 1, open - quote - 1) + "\"";
    const std::size_t close = text_.find(closing, open + 1);
    if (close == std::string::npos) {
      fail(scan_fault::unterminated_raw_string, start);
      return text_.size();
    }
    const std::size_t end = close + closing.size();
    if (logical_.changed_within(start, end))
      fail(scan_fault::raw_string_with_splice, start);
    return end;
  }

  // Skips whitespace and comments; newlines too unless `within_line` (a directive ends there,
  // but a /* */ spanning lines is still one space).
  std::size_t skip_space(std::size_t i, bool within_line) {
    while (i < text_.size() && !out_.problem) {
      const char c = text_[i];
      if (is_line_space(c) || (!within_line && c == '\n'))
        ++i;
      else if (c == '/' && at(i + 1) == '*')
        i = block_comment_end(i);
      else
        break;
    }
    return i;
  }

  std::size_t after_hash(std::size_t hash, std::size_t next) {
    const std::size_t word_start = skip_space(next, true);
    if (!is_identifier_start(at(word_start)))
      return next;
    std::size_t word_end = word_start;
    while (word_end < text_.size() && is_identifier_char(text_[word_end]))
      ++word_end;
    const std::string_view word = std::string_view{text_}.substr(word_start, word_end - word_start);
    if (!one_of(word, file_directives))
      return next;
    return after_target(hash, skip_space(word_end, true), word, true);
  }

  // __has_include ( header-name ): anything else in the parentheses is a macro, refused.
  std::size_t after_operator(std::size_t start, std::size_t end, std::string_view word) {
    const std::size_t paren = skip_space(end, false);
    if (at(paren) != '(') {
      record(word, false, start, false, std::string{word} + " without '(' after it");
      return end;
    }
    return after_target(start, skip_space(paren + 1, false), word, false);
  }

  // The header name at `target` ("a.h" or <a.h>, read as one token: no comment inside it), or
  // what stands there instead, up to the end of the line.
  std::size_t after_target(std::size_t start, std::size_t target, std::string_view word, bool has_hash) {
    const char open = at(target);
    if (open == '"' || open == '<') {
      const char close = open == '"' ? '"' : '>';
      std::size_t end = target + 1;
      while (end < text_.size() && text_[end] != close && text_[end] != '\n')
        ++end;
      if (at(end) == close) {
        record(word, has_hash, start, true, text_.substr(target, end + 1 - target));
        return end + 1;
      }
    }
    // At most what is quoted, so a long line of them stays linear.
    auto rest = std::string_view{text_}.substr(std::min(target, text_.size()), max_quoted_bytes + 1);
    rest = rest.substr(0, rest.find('\n'));
    record(word, has_hash, start, false, shortened(rest));
    return target;
  }

  void record(std::string_view word, bool has_hash, std::size_t start, bool literal, std::string target) {
    out_.references.push_back({std::string{word}, has_hash, literal, std::move(target), logical_.original(start)});
  }

  const logical_text& logical_;
  const std::string& text_;
  source_reading reading_;
  file_references out_;
};

} // namespace

file_references scan_file_references(std::string_view source, source_reading reading) {
  const logical_text logical{source, reading.trigraphs};
  return scanner{logical, reading}.run();
}

} // namespace warpforge::gpu
