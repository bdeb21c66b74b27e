#include "deploy/observe/draft/kernel_source.hpp"

#include "deploy/observe/draft/kernel_signature.hpp"

#include <algorithm>
#include <charconv>

namespace warpforge::observe {
namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The offset one past the bracket closing the one at `open`, or npos.
std::size_t past_matching(std::string_view text, std::size_t open, char open_char, char close_char) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == open_char) ++depth;
    if (text[i] == close_char && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

/// The last identifier of a declaration ("unsigned int blockSize = 256" -> "blockSize",
/// "float *__restrict__ out" -> "out", "int" -> "" when it is only a type).
std::string declared_name(std::string_view declaration) {
  if (auto equals = declaration.find('='); equals != std::string_view::npos) declaration = declaration.substr(0, equals);
  if (auto bracket = declaration.find('['); bracket != std::string_view::npos) declaration = declaration.substr(0, bracket);
  std::vector<std::string> words;
  std::string word;
  for (char c : std::string{declaration} + ' ') {
    if (identifier_char(c)) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  static constexpr std::string_view not_names[] = {"const", "volatile", "__restrict__", "__restrict", "unsigned",
                                                   "signed", "int", "float", "double", "char", "short", "long",
                                                   "bool", "class", "typename", "struct"};
  if (words.size() < 2) return {}; // a type alone: unnamed
  const std::string& last = words.back();
  if (std::find(std::begin(not_names), std::end(not_names), last) != std::end(not_names)) return {};
  return last;
}

/// Whether the declaration before `name_at` (back to the previous ';', '}' or '{') says __global__.
bool declared_global(std::string_view text, std::size_t name_at, std::size_t& head_begin) {
  std::size_t begin = name_at;
  while (begin > 0 && text[begin - 1] != ';' && text[begin - 1] != '}' && text[begin - 1] != '{') --begin;
  head_begin = begin;
  return text.substr(begin, name_at - begin).find("__global__") != std::string_view::npos;
}

/// The template parameters of the declaration whose head is [head_begin, name_at): the names in
/// its `template <...>` (the head holds no ';', '{' or '}', so a "template" in it is this one's).
std::vector<std::string> template_params_of(std::string_view text, std::size_t head_begin, std::size_t name_at) {
  const std::string_view head = text.substr(head_begin, name_at - head_begin);
  std::size_t at = head.rfind("template");
  while (at != std::string_view::npos && ((at > 0 && identifier_char(head[at - 1])) ||
                                          (at + 8 < head.size() && identifier_char(head[at + 8]))))
    at = at == 0 ? std::string_view::npos : head.rfind("template", at - 1);
  if (at == std::string_view::npos) return {};
  const std::size_t open = head.find('<', at);
  if (open == std::string_view::npos) return {};
  const std::size_t close = past_matching(head, open, '<', '>');
  if (close == std::string_view::npos) return {};
  std::vector<std::string> names;
  for (const auto& part : split_top_level(head.substr(open + 1, close - open - 2))) names.push_back(declared_name(part));
  return names;
}

} // namespace

std::string without_comments(std::string_view text) {
  std::string out{text};
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '"' || out[i] == '\'') { // skip literals: "//" inside a string is not a comment
      const char quote = out[i];
      for (++i; i < out.size() && out[i] != quote && out[i] != '\n'; ++i)
        if (out[i] == '\\') ++i;
      continue;
    }
    if (out[i] == '/' && out[i + 1] == '/') {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      for (; i < out.size() && !(out[i] == '*' && i + 1 < out.size() && out[i + 1] == '/'); ++i)
        if (out[i] != '\n') out[i] = ' ';
      if (i + 1 < out.size()) out[i] = out[i + 1] = ' ';
      ++i;
    }
  }
  return out;
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

bool uses_identifier(std::string_view text, std::string_view name) {
  const std::string code = without_comments(text);
  for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
    const bool starts = at == 0 || !identifier_char(code[at - 1]);
    const bool ends = at + name.size() >= code.size() || !identifier_char(code[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

expected<kernel_definition, std::string> find_kernel_definition(std::string_view text, std::string_view name,
                                                                std::size_t param_count, std::string_view origin) {
  const std::string code = without_comments(text);
  const std::string_view view{code};
  for (std::size_t at = view.find(name); at != std::string_view::npos; at = view.find(name, at + 1)) {
    if ((at > 0 && identifier_char(view[at - 1])) || (at + name.size() < view.size() && identifier_char(view[at + name.size()])))
      continue;
    std::size_t open = at + name.size();
    while (open < view.size() && (view[open] == ' ' || view[open] == '\t' || view[open] == '\n' || view[open] == '\r')) ++open;
    if (open >= view.size() || view[open] != '(') continue;
    std::size_t head_begin = 0;
    if (!declared_global(view, at, head_begin)) continue;
    const std::size_t close = past_matching(view, open, '(', ')');
    if (close == std::string_view::npos) continue;
    std::size_t brace = close;
    while (brace < view.size() && view[brace] != '{' && view[brace] != ';') ++brace;
    if (brace >= view.size() || view[brace] != '{') continue; // a declaration, not the definition
    const auto params = split_top_level(view.substr(open + 1, close - open - 2));
    const bool no_params = params.empty() || (params.size() == 1 && params[0] == "void");
    if ((no_params ? 0 : params.size()) != param_count) continue;
    kernel_definition found;
    found.line = line_of(view, at);
    if (!no_params)
      for (const auto& p : params) found.param_names.push_back(declared_name(p));
    found.template_params = template_params_of(view, head_begin, at);
    found.body_begin = brace;
    found.body_end = past_matching(view, brace, '{', '}');
    if (found.body_end == std::string_view::npos) found.body_end = view.size();
    return found;
  }
  return unexpected{"no __global__ definition of '" + std::string{name} + "' with " + std::to_string(param_count) +
                    " parameters in " + std::string{origin}};
}

std::vector<integer_define> integer_defines(std::string_view text) {
  std::vector<integer_define> out;
  const std::string code = without_comments(text);
  std::size_t line = 0;
  for (std::size_t start = 0; start < code.size();) {
    std::size_t end = code.find('\n', start);
    if (end == std::string::npos) end = code.size();
    ++line;
    std::string_view l = std::string_view{code}.substr(start, end - start);
    std::size_t i = 0;
    auto skip_blanks = [&] { while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i; };
    skip_blanks();
    if (l.substr(i).starts_with("#")) {
      ++i;
      skip_blanks();
      if (l.substr(i).starts_with("define") && i + 6 < l.size() && (l[i + 6] == ' ' || l[i + 6] == '\t')) {
        i += 6;
        skip_blanks();
        std::size_t name_end = i;
        while (name_end < l.size() && identifier_char(l[name_end])) ++name_end;
        std::string name{l.substr(i, name_end - i)};
        i = name_end;
        if (!name.empty() && (i >= l.size() || l[i] != '(')) { // not a function-like macro
          skip_blanks();
          std::size_t value_end = i;
          while (value_end < l.size() && identifier_char(l[value_end])) ++value_end;
          std::string_view literal = l.substr(i, value_end - i);
          while (!literal.empty() && (literal.back() == 'u' || literal.back() == 'U' || literal.back() == 'l' || literal.back() == 'L'))
            literal.remove_suffix(1);
          std::int64_t value = 0;
          auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
          std::size_t rest = value_end;
          while (rest < l.size() && (l[rest] == ' ' || l[rest] == '\t' || l[rest] == '\r')) ++rest;
          if (ec == std::errc{} && ptr == literal.data() + literal.size() && !literal.empty() && rest == l.size())
            out.push_back({name, value, line, start, end - start});
        }
      }
    }
    start = end + 1;
  }
  return out;
}

} // namespace warpforge::observe
