#include "llm/reply/source_text.hpp"

#include "llm/reply/phrases.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace warpforge::llm::source_text {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

namespace {

// Blanks [from, to) of `text` to spaces, keeping newlines so lines and columns stay put.
void blank_range(std::string& text, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to && i < text.size(); ++i)
    if (text[i] != '\n')
      text[i] = ' ';
}

// The offset just past a string or char literal opened at `open`; an unterminated literal ends
// at its line's end (the compiler will say so; the checks only need it not to swallow the file).
std::size_t literal_end(std::string_view source, std::size_t open) {
  const char quote = source[open];
  for (std::size_t i = open + 1; i < source.size(); ++i) {
    if (source[i] == '\\')
      ++i;
    else if (source[i] == quote)
      return i + 1;
    else if (source[i] == '\n')
      return i;
  }
  return source.size();
}

// A ' after a digit is a digit separator (1'000), not a char literal.
bool opens_literal(std::string_view source, std::size_t i) {
  if (source[i] == '"')
    return true;
  return source[i] == '\'' && !(i > 0 && std::isdigit(static_cast<unsigned char>(source[i - 1])));
}

} // namespace

views blank(std::string_view source) {
  views out{std::string{source}, std::string{source}, {}};
  std::size_t i = 0;
  while (i < source.size()) {
    const bool slash = source[i] == '/' && i + 1 < source.size();
    if (slash && source[i + 1] == '/') {
      const std::size_t end = std::min(source.find('\n', i), source.size());
      out.comments.push_back({i, std::string{source.substr(i + 2, end - i - 2)}});
      blank_range(out.without_comments, i, end);
      blank_range(out.code_only, i, end);
      i = end;
    } else if (slash && source[i + 1] == '*') {
      const std::size_t close = source.find("*/", i + 2);
      const std::size_t end = close == std::string_view::npos ? source.size() : close + 2;
      const std::size_t inner_end = close == std::string_view::npos ? source.size() : close;
      out.comments.push_back({i, std::string{source.substr(i + 2, inner_end - i - 2)}});
      blank_range(out.without_comments, i, end);
      blank_range(out.code_only, i, end);
      i = end;
    } else if (opens_literal(source, i)) {
      const std::size_t end = literal_end(source, i);
      const bool closed = end > i + 1 && end <= source.size() && source[end - 1] == source[i];
      blank_range(out.code_only, i + 1, closed ? end - 1 : end);
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

position position_of(std::string_view text, std::size_t offset) {
  position at;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

std::string describe(position at) {
  return "line " + std::to_string(at.line) + " column " + std::to_string(at.column);
}

namespace {

// For each '(' and '{' of `text`, the offset of the bracket of the same kind that closes it
// (text.size() when none does), found in one pass with a stack per kind: looking each one up
// by scanning forward was quadratic on a reply of unclosed parentheses.
std::vector<std::size_t> closing_brackets(std::string_view text) {
  std::vector<std::size_t> out(text.size(), text.size());
  std::vector<std::size_t> parens;
  std::vector<std::size_t> braces;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(')
      parens.push_back(i);
    else if (c == '{')
      braces.push_back(i);
    else if (c == ')' && !parens.empty()) {
      out[parens.back()] = i;
      parens.pop_back();
    } else if (c == '}' && !braces.empty()) {
      out[braces.back()] = i;
      braces.pop_back();
    }
  }
  return out;
}

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  return i;
}

// Where the declaration holding the name at `name` starts: after the previous ';', '{' or '}'
// outside parentheses (so __launch_bounds__(...) stays in it).
std::size_t declaration_start(std::string_view code, std::size_t name) {
  std::size_t depth = 0;
  const std::size_t limit = name > max_declaration_bytes ? name - max_declaration_bytes : 0;
  for (std::size_t i = name; i > limit; --i) {
    const char c = code[i - 1];
    if (c == ')')
      ++depth;
    else if (c == '(' && depth > 0)
      --depth;
    else if (depth == 0 && (c == ';' || c == '{' || c == '}'))
      return i;
  }
  return limit;
}

// `text` without its preprocessor lines (#define, #endif...), which precede a definition but
// are not part of it.
std::string without_directives(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] != '#')
      out.append(line);
    out += '\n';
    start = end + 1;
  }
  return out;
}



// The offset just past each `extern "C"` (a word "extern", optional whitespace, "C" in quotes).
std::vector<std::size_t> extern_c_ends(std::string_view text) {
  std::vector<std::size_t> out;
  constexpr std::string_view keyword = "extern";
  for (auto at = text.find(keyword); at != std::string_view::npos; at = text.find(keyword, at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1]))
      continue;
    const std::size_t quote = phrases::skip_space(text, at + keyword.size());
    if (text.substr(quote, 3) == "\"C\"")
      out.push_back(quote + 3);
  }
  return out;
}

bool has_extern_c(std::string_view text) { return !extern_c_ends(text).empty(); }

// For each offset, whether it lies inside an extern "C" { ... } block (between its braces).
std::vector<bool> inside_extern_c_blocks(const views& source, const std::vector<std::size_t>& closing) {
  const std::string_view text = source.without_comments;
  std::vector<int> starts_minus_ends(text.size() + 1, 0);
  for (const auto end : extern_c_ends(text)) {
    const std::size_t open = phrases::skip_space(text, end);
    if (open < text.size() && text[open] == '{') {
      ++starts_minus_ends[open + 1];
      --starts_minus_ends[std::max(open + 1, closing[open])];
    }
  }
  std::vector<bool> out(text.size(), false);
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    depth += starts_minus_ends[i];
    out[i] = depth > 0;
  }
  return out;
}

// The first offset of `token` as a whole word in `text`, or npos.
std::size_t token_offset(std::string_view text, std::string_view token) {
  for (std::size_t at = text.find(token); at != std::string_view::npos; at = text.find(token, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(text[at - 1]);
    const std::size_t end = at + token.size();
    if (starts && (end == text.size() || !is_identifier_char(text[end])))
      return at;
  }
  return std::string_view::npos;
}

// The "template <...>" of a declaration's prefix, its blank runs as one space; empty when it has
// none. Looked for anywhere in the prefix (a macro line without a ';' may precede it); the '<' is
// matched by depth, outside parentheses ("template <int N, bool B = (N > 2)>").
std::string template_head_of(std::string_view prefix) {
  constexpr std::string_view keyword = "template";
  const std::size_t start = token_offset(prefix, keyword);
  if (start == std::string_view::npos)
    return {};
  const std::size_t open = skip_space(prefix, start + keyword.size());
  if (open >= prefix.size() || prefix[open] != '<')
    return {};
  int angles = 0;
  int parens = 0;
  for (std::size_t i = open; i < prefix.size(); ++i) {
    const char c = prefix[i];
    if (c == '(')
      ++parens;
    else if (c == ')' && parens > 0)
      --parens;
    else if (c == '<' && parens == 0)
      ++angles;
    else if (c == '>' && parens == 0 && --angles == 0) {
      std::string head;
      for (const char h : prefix.substr(start, i + 1 - start)) {
        const bool blank = std::isspace(static_cast<unsigned char>(h)) != 0;
        if (!blank)
          head += h;
        else if (head.back() != ' ')
          head += ' ';
      }
      return head;
    }
  }
  return {};
}

bool has_token(std::string_view text, std::string_view token) {
  return token_offset(text, token) != std::string_view::npos;
}

bool is_control_keyword(std::string_view name) {
  static constexpr std::array<std::string_view, 9> keywords{
    "if", "for", "while", "switch", "catch", "return", "sizeof", "do", "else"};
  return std::find(keywords.begin(), keywords.end(), name) != keywords.end();
}

} // namespace

std::vector<function_definition> find_definitions(const views& source) {
  const std::string_view code = source.code_only;
  const auto closing = closing_brackets(code);
  const auto in_extern_c_block = inside_extern_c_blocks(source, closing);
  std::vector<function_definition> out;
  std::size_t i = 0;
  while (i < code.size() && out.size() < max_definitions) {
    if (!is_identifier_char(code[i]) || std::isdigit(static_cast<unsigned char>(code[i])) ||
        (i > 0 && is_identifier_char(code[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < code.size() && is_identifier_char(code[end]))
      ++end;
    const std::size_t paren = skip_space(code, end);
    if (paren < code.size() && code[paren] == '(' && !is_control_keyword(code.substr(i, end - i))) {
      const std::size_t close = closing[paren];
      const std::size_t brace = skip_space(code, close + 1);
      const bool readable = close < code.size() && close - paren <= max_declaration_bytes;
      if (readable && brace < code.size() && code[brace] == '{') {
        function_definition definition;
        definition.name = std::string{code.substr(i, end - i)};
        definition.name_offset = i;
        const std::size_t start = declaration_start(code, i);
        definition.prefix = without_directives(code.substr(start, i - start));
        definition.parameters = std::string{code.substr(paren + 1, close - paren - 1)};
        definition.body_open = brace;
        definition.body_close = closing[brace];
        definition.is_global = has_token(definition.prefix, "__global__");
        definition.is_device = has_token(definition.prefix, "__device__");
        definition.is_extern_c = has_extern_c(without_directives(
          std::string_view{source.without_comments}.substr(start, i - start)));
        definition.is_extern_c = definition.is_extern_c || in_extern_c_block[i];
        definition.template_head = template_head_of(definition.prefix);
        out.push_back(std::move(definition));
      }
    }
    i = end;
  }
  return out;
}

namespace {

std::vector<std::string> split_parameters(std::string_view parameters) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (const char c : parameters) {
    if (c == '(' || c == '<' || c == '[')
      ++depth;
    else if (c == ')' || c == '>' || c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (current.find_first_not_of(" \t\r\n") != std::string::npos || !out.empty())
    out.push_back(std::move(current));
  return out;
}

std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (is_identifier_char(text[i])) {
      std::size_t end = i;
      while (end < text.size() && is_identifier_char(text[end]))
        ++end;
      out.emplace_back(text.substr(i, end - i));
      i = end;
    } else if (text.substr(i, 2) == "::") {
      out.emplace_back("::");
      i += 2;
    } else {
      out.emplace_back(1, text[i]);
      ++i;
    }
  }
  return out;
}

bool is_word(const std::string& token) { return !token.empty() && is_identifier_char(token[0]); }
bool is_cv(const std::string& token) { return token == "const" || token == "volatile"; }
bool is_indirection(const std::string& token) { return token == "*" || token == "&"; }

bool is_type_keyword(const std::string& token) {
  static constexpr std::array<std::string_view, 12> keywords{
    "void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
    "const", "volatile"};
  return std::find(keywords.begin(), keywords.end(), token) != keywords.end();
}

// Drops the parameter's name: the word before the first '[' or the last token, when it is not a
// type keyword and something other than const/volatile precedes it.
void drop_name(std::vector<std::string>& tokens) {
  const auto bracket = std::find(tokens.begin(), tokens.end(), "[");
  if (bracket == tokens.begin())
    return;
  const auto name = std::prev(bracket);
  if (!is_word(*name) || is_type_keyword(*name))
    return;
  if (std::any_of(tokens.begin(), name, [](const auto& t) { return !is_cv(t); }))
    tokens.erase(name);
}

// const/volatile of the pointee moved to the front; top-level cv dropped (it does not change
// the function's type); `unsigned` alone read as `unsigned int`.
void canonical_qualifiers(std::vector<std::string>& tokens) {
  const auto last_indirection =
    std::find_if(tokens.rbegin(), tokens.rend(), [](const auto& t) { return is_indirection(t); });
  const bool indirect = last_indirection != tokens.rend();
  if (indirect)
    tokens.erase(std::remove_if(last_indirection.base(), tokens.end(), is_cv), tokens.end());
  const auto first_indirection = std::find_if(tokens.begin(), tokens.end(), is_indirection);
  const bool has_const = std::find(tokens.begin(), first_indirection, "const") != first_indirection;
  const bool has_volatile =
    std::find(tokens.begin(), first_indirection, "volatile") != first_indirection;
  tokens.erase(std::remove_if(tokens.begin(), first_indirection, is_cv), first_indirection);
  if (indirect && has_volatile)
    tokens.insert(tokens.begin(), "volatile");
  if (indirect && has_const)
    tokens.insert(tokens.begin(), "const");
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool sized = i + 1 < tokens.size() &&
                       (tokens[i + 1] == "int" || tokens[i + 1] == "char" ||
                        tokens[i + 1] == "short" || tokens[i + 1] == "long");
    if (tokens[i] == "unsigned" && !sized)
      tokens.insert(tokens.begin() + static_cast<std::ptrdiff_t>(i) + 1, "int");
  }
}

std::string join_tokens(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& token : tokens) {
    const char last = out.empty() ? '\0' : out.back();
    if (is_word(token) && (is_identifier_char(last) || last == '*' || last == '&'))
      out += ' ';
    out += token;
  }
  return out;
}

} // namespace

std::vector<std::string> parameter_types(std::string_view parameters) {
  std::vector<std::string> out;
  for (const auto& parameter : split_parameters(parameters)) {
    auto tokens = tokens_of(parameter);
    std::erase_if(tokens, [](const std::string& t) {
      return t == "__restrict__" || t == "__restrict" || t == "restrict" ||
             t == "__grid_constant__";
    });
    drop_name(tokens);
    canonical_qualifiers(tokens);
    out.push_back(join_tokens(tokens));
  }
  if (out.size() == 1 && out.front() == "void")
    out.clear();
  return out;
}

std::string describe_signature(std::string_view name, const std::vector<std::string>& types) {
  std::string out{name};
  out += '(';
  for (std::size_t i = 0; i < types.size(); ++i)
    out += (i > 0 ? ", " : "") + types[i];
  return out + ')';
}

} // namespace warpforge::llm::source_text
