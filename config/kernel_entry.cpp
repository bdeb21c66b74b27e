#include "config/kernel_entry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace warpforge::config {
namespace {

struct token {
  std::string text;
  std::size_t column = 0; // 1-based, in the entry as written
};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_word(const std::string& text) { return !text.empty() && is_word_char(text.front()); }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string at_column(std::size_t column) { return "column " + std::to_string(column) + ": "; }

// Words ([A-Za-z0-9_]+), "::" and the single punctuation characters; anything else is refused.
expected<std::vector<token>, std::string> tokens_of(std::string_view text) {
  constexpr std::string_view punctuation = "<>,*&()-";
  std::vector<token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_blank(c)) {
      ++i;
    } else if (is_word_char(c)) {
      std::size_t end = i;
      while (end < text.size() && is_word_char(text[end]))
        ++end;
      out.push_back({std::string{text.substr(i, end - i)}, i + 1});
      i = end;
    } else if (c == ':' && i + 1 < text.size() && text[i + 1] == ':') {
      out.push_back({"::", i + 1});
      i += 2;
    } else if (punctuation.find(c) != std::string_view::npos) {
      out.push_back({std::string(1, c), i + 1});
      ++i;
    } else {
      const auto shown = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "\\x" + [c] {
        constexpr std::string_view hex = "0123456789abcdef";
        const auto u = static_cast<unsigned char>(c);
        return std::string{hex[u >> 4], hex[u & 15]};
      }();
      return unexpected(at_column(i + 1) + "'" + shown +
                        "' cannot appear in an entry (letters, digits, _, ::, <>, (), ',', *, & and - only)");
    }
  }
  return out;
}

bool is_integer_literal(const std::string& word) {
  return !word.empty() && std::isdigit(static_cast<unsigned char>(word.front())) != 0;
}

// 256u, 256UL, 0x10ull: the number without its suffix (the demangler adds u for unsigned).
std::string without_integer_suffix(std::string word) {
  const bool hex = word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
  while (word.size() > (hex ? 3u : 1u) && (word.back() == 'u' || word.back() == 'U' || word.back() == 'l' ||
                                           word.back() == 'L'))
    word.pop_back();
  return word;
}

// One template argument or parameter type, normalised (see the header).
std::string normalised(std::vector<std::string> words) {
  for (auto& w : words)
    if (is_integer_literal(w))
      w = without_integer_suffix(std::move(w));
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "unsigned" && words[i] != "signed")
      continue;
    const bool sized = i + 1 < words.size() &&
                       (words[i + 1] == "int" || words[i + 1] == "char" || words[i + 1] == "short" ||
                        words[i + 1] == "long");
    if (!sized && words[i] == "unsigned")
      words.insert(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, "int");
  }
  // "const T*" is "T const*": the const goes before the first * or & (or to the end).
  if (words.size() > 1 && words.front() == "const") {
    words.erase(words.begin());
    const auto declarator = std::find_if(words.begin(), words.end(), [](const auto& w) { return w == "*" || w == "&"; });
    words.insert(declarator, "const");
  }
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0 && is_word(words[i - 1]) && is_word(words[i]))
      out += ' ';
    if (words[i] == "," && !out.empty())
      out += ", ";
    else
      out += words[i];
  }
  return out;
}

class entry_parser {
public:
  explicit entry_parser(std::vector<token> tokens) : tokens_(std::move(tokens)) {}

  expected<kernel_entry, std::string> parse() {
    kernel_entry out;
    if (tokens_.empty())
      return unexpected(std::string{"the entry is empty"});
    if (peek("::")) {
      out.name = "::";
      ++at_;
    }
    for (;;) {
      if (at_ >= tokens_.size() || !is_word(tokens_[at_].text) || is_integer_literal(tokens_[at_].text))
        return unexpected(here() + "a function name is expected");
      out.name += tokens_[at_++].text;
      if (!peek("::"))
        break;
      out.name += "::";
      ++at_;
    }
    if (peek("<")) {
      out.is_template = true;
      auto arguments = list(">", "a template argument");
      if (!arguments)
        return unexpected(arguments.error());
      out.template_arguments = std::move(*arguments);
    }
    if (peek("(")) {
      auto parameters = list(")", "a parameter type");
      if (!parameters)
        return unexpected(parameters.error());
      if (parameters->size() == 1 && parameters->front() == "void")
        parameters->clear();
      out.parameters = std::move(*parameters);
    }
    if (at_ < tokens_.size())
      return unexpected(here() + "'" + tokens_[at_].text + "' after the entry: write name, <template arguments>, (parameter types)");
    return out;
  }

private:
  bool peek(std::string_view text) const { return at_ < tokens_.size() && tokens_[at_].text == text; }

  std::string here() const {
    return at_ < tokens_.size() ? at_column(tokens_[at_].column) : std::string{"at the end: "};
  }

  // The comma-separated items up to the `close` matching the opening token at at_; brackets
  // nest (a template argument may itself be Vec<float, 4> or void(*)(int)).
  expected<std::vector<std::string>, std::string> list(std::string_view close, std::string_view what) {
    const std::size_t open_column = tokens_[at_].column;
    const std::string open = tokens_[at_].text;
    ++at_;
    std::vector<std::string> items;
    std::vector<std::string> words;
    std::vector<std::string> nesting;
    auto finish_item = [&]() -> expected<void, std::string> {
      if (words.empty())
        return unexpected(here() + std::string{what} + " is missing");
      items.push_back(normalised(std::move(words)));
      words.clear();
      return {};
    };
    for (; at_ < tokens_.size(); ++at_) {
      const auto& t = tokens_[at_].text;
      if (nesting.empty() && t == close) {
        ++at_;
        if (words.empty() && items.empty())
          return items; // "<>" or "()"
        if (auto done = finish_item(); !done)
          return unexpected(done.error());
        return items;
      }
      if (nesting.empty() && t == ",") {
        if (auto done = finish_item(); !done)
          return unexpected(done.error());
        continue;
      }
      if (t == "<" || t == "(")
        nesting.push_back(t == "<" ? ">" : ")");
      else if (t == ">" || t == ")") {
        if (nesting.empty() || nesting.back() != t)
          return unexpected(here() + "'" + t + "' does not close anything");
        nesting.pop_back();
      }
      words.push_back(t);
    }
    return unexpected(at_column(open_column) + "'" + open + "' is never closed with '" + std::string{close} + "'");
  }

  std::vector<token> tokens_;
  std::size_t at_ = 0;
};

std::string joined(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

} // namespace

expected<kernel_entry, std::string> parse_kernel_entry(std::string_view text) {
  if (text.size() > max_entry_bytes)
    return unexpected("the entry is " + std::to_string(text.size()) + " bytes long, more than " +
                      std::to_string(max_entry_bytes));
  auto tokens = tokens_of(text);
  if (!tokens)
    return unexpected(tokens.error());
  return entry_parser{std::move(*tokens)}.parse();
}

std::string to_string(const kernel_entry& entry) {
  std::string out = entry.name;
  if (entry.is_template)
    out += "<" + joined(entry.template_arguments) + ">";
  if (entry.parameters)
    out += "(" + joined(*entry.parameters) + ")";
  return out;
}

std::string_view base_name(const kernel_entry& entry) {
  std::string_view name = entry.name;
  if (const auto colons = name.rfind("::"); colons != std::string_view::npos)
    name.remove_prefix(colons + 2);
  return name;
}

bool is_plain_name(const kernel_entry& entry) {
  return !entry.is_template && !entry.parameters && entry.name.find("::") == std::string::npos;
}

kernel_entry at_point(const kernel_entry& entry, const expression::integer_values& values) {
  kernel_entry out = entry;
  for (auto& argument : out.template_arguments)
    if (const auto value = values.find(argument); value != values.end())
      argument = std::to_string(value->second);
  return out;
}

std::string entry_at_point(std::string_view text, const expression::integer_values& values) {
  auto entry = parse_kernel_entry(text);
  if (!entry)
    return std::string{text};
  return to_string(at_point(*entry, values));
}

} // namespace warpforge::config
