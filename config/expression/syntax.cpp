#include "config/expression/syntax.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

namespace warpforge::expression::syntax {
namespace {

constexpr function_info integer_functions[] = {
  {"ceil_div", function::ceil_div, 2}, {"round_up", function::round_up, 2},
  {"min", function::min, 2},           {"max", function::max, 2},
  {"pow", function::pow, 2},           {"pow2", function::pow2, 1},
  {"log2", function::log2, 1},
};

// Every operator once, with both spellings of logic: the one place that says how each is written.
struct operator_spelling {
  operation op;
  std::string_view symbol;
  std::string_view word; // empty: the same in both languages
};
constexpr operator_spelling spellings[] = {
  {operation::negate, "-", ""},
  {operation::logical_not, "!", "not"},
  {operation::add, "+", ""},
  {operation::subtract, "-", ""},
  {operation::multiply, "*", ""},
  {operation::divide, "/", ""},
  {operation::modulo, "%", ""},
  {operation::less, "<", ""},
  {operation::less_equal, "<=", ""},
  {operation::greater, ">", ""},
  {operation::greater_equal, ">=", ""},
  {operation::equal, "==", ""},
  {operation::not_equal, "!=", ""},
  {operation::logical_and, "&&", "and"},
  {operation::logical_or, "||", "or"},
};

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

result_type type_of(const node& n) {
  switch (n.op) {
  case operation::logical_not:
  case operation::less:
  case operation::less_equal:
  case operation::greater:
  case operation::greater_equal:
  case operation::equal:
  case operation::not_equal:
  case operation::logical_and:
  case operation::logical_or: return result_type::truth;
  default: return result_type::number;
  }
}

std::string_view describe(result_type type) {
  return type == result_type::number ? "a number" : "a truth value";
}

enum class token_kind : std::uint8_t { number, name, symbol, open, close, comma, end };

struct token {
  token_kind kind = token_kind::end;
  std::string text;
  std::int64_t integer = 0; // number, integer language
  double real = 0.0;        // number, real language
  std::uint32_t column = 0; // 1-based
};

// Recursive descent over the grammar of syntax.hpp, one method per rule, one token of lookahead.
// A method returns nullopt after recording the error; the first error ends the parse.
class parser {
public:
  parser(std::string_view text, const language& lang) : text_(text), lang_(lang) {}

  expected<tree, error> run() {
    if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return unexpected(error{error_kind::syntax, "empty expression", 1, {}});
    if (!advance())
      return unexpected(std::move(error_));
    auto root = parse_or();
    if (root && current_.kind != token_kind::end)
      fail(error_kind::syntax, current_.column,
           misspelled_logic(current_).value_or("unexpected " + found(current_) +
                                               " after a complete expression"));
    if (failed_)
      return unexpected(std::move(error_));
    tree out;
    out.type = type_of(*root);
    out.root = std::make_shared<const node>(std::move(*root));
    out.references = std::move(references_);
    return out;
  }

private:
  using parsed = std::optional<node>;

  std::nullopt_t fail(error_kind kind, std::uint32_t column, std::string message) {
    if (!failed_)
      error_ = error{kind, std::move(message), column, {}};
    failed_ = true;
    return std::nullopt;
  }

  static std::string found(const token& t) {
    return t.kind == token_kind::end ? "the end of the expression" : "'" + t.text + "'";
  }

  // With symbol logic, `and`, `or` and `not` are names; where an operator is due, they are
  // most likely the other spelling.
  std::optional<std::string> misspelled_logic(const token& t) const {
    if (lang_.logic != logic_spelling::symbols || t.kind != token_kind::name)
      return std::nullopt;
    for (const auto& s : spellings)
      if (s.word == t.text)
        return "'" + t.text + "' is not an operator here; write '" + std::string{s.symbol} + "'";
    return std::nullopt;
  }

  // --- tokens -----------------------------------------------------------------------------------
  bool at_end() const { return pos_ >= text_.size(); }
  std::uint32_t column_at(std::size_t pos) const { return static_cast<std::uint32_t>(pos + 1); }

  // Reads the next token into current_; false (with the error) when nothing starts here.
  bool advance() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0)
      ++pos_;
    token t;
    t.column = column_at(pos_);
    if (at_end()) {
      t.kind = token_kind::end;
      current_ = std::move(t);
      return true;
    }
    const char c = text_[pos_];
    const bool real = lang_.numbers == number_syntax::real;
    if (is_digit(c) || (real && c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1])))
      return lex_number(std::move(t));
    if (is_name_start(c)) {
      const std::size_t begin = pos_;
      while (!at_end() && is_name_char(text_[pos_]))
        ++pos_;
      t.kind = token_kind::name;
      t.text = std::string{text_.substr(begin, pos_ - begin)};
      current_ = std::move(t);
      return true;
    }
    if (c == '(' || c == ')' || c == ',') {
      t.kind = c == '(' ? token_kind::open : c == ')' ? token_kind::close : token_kind::comma;
      t.text = std::string(1, c);
      ++pos_;
      current_ = std::move(t);
      return true;
    }
    for (const std::string_view symbol :
         {"<=", ">=", "==", "!=", "&&", "||", "<", ">", "+", "-", "*", "/", "%", "!"}) {
      if (text_.substr(pos_, symbol.size()) != symbol)
        continue;
      // Word logic: the symbol spelling of and / or / not is an error naming the word.
      for (const auto& spelled : spellings)
        if (lang_.logic == logic_spelling::words && !spelled.word.empty() &&
            spelled.symbol == symbol) {
          fail(error_kind::syntax, t.column,
               "'" + std::string{symbol} + "' is not an operator here; write '" +
                 std::string{spelled.word} + "'");
          return false;
        }
      t.kind = token_kind::symbol;
      t.text = std::string{symbol};
      pos_ += symbol.size();
      current_ = std::move(t);
      return true;
    }
    if (c == '=') {
      fail(error_kind::syntax, t.column, "'=' is not an operator; write '=='");
      return false;
    }
    fail(error_kind::syntax, t.column, "unexpected character '" + std::string(1, c) + "'");
    return false;
  }

  bool lex_number(token t) {
    const std::size_t begin = pos_;
    const auto digits = [&] {
      while (!at_end() && (is_digit(text_[pos_]) || text_[pos_] == '_'))
        ++pos_;
    };
    digits();
    if (lang_.numbers == number_syntax::real) {
      if (!at_end() && text_[pos_] == '.') {
        ++pos_;
        digits();
      }
      if (!at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        const std::size_t exponent = pos_++;
        if (!at_end() && (text_[pos_] == '+' || text_[pos_] == '-'))
          ++pos_;
        if (at_end() || !is_digit(text_[pos_])) {
          fail(error_kind::syntax, column_at(exponent),
               "an exponent needs digits, as in 1e9 or 2.5e-3");
          return false;
        }
        digits();
      }
    } else if (!at_end() && text_[pos_] == '.') {
      fail(error_kind::syntax, column_at(pos_),
           "a fraction: these expressions take whole numbers (64-bit integers)");
      return false;
    }
    if (!at_end() && is_name_char(text_[pos_])) {
      fail(error_kind::syntax, column_at(pos_),
           "a number runs into the letter '" + std::string(1, text_[pos_]) + "'");
      return false;
    }
    t.kind = token_kind::number;
    t.text = std::string{text_.substr(begin, pos_ - begin)};
    std::string plain = t.text;
    plain.erase(std::remove(plain.begin(), plain.end(), '_'), plain.end());
    if (lang_.numbers == number_syntax::integer) {
      constexpr std::int64_t radix = 10;
      for (const char digit : plain)
        if (__builtin_mul_overflow(t.integer, radix, &t.integer) ||
            __builtin_add_overflow(t.integer, static_cast<std::int64_t>(digit - '0'), &t.integer)) {
          fail(error_kind::overflow, t.column, "integer literal does not fit in int64");
          return false;
        }
    } else {
      t.real = std::strtod(plain.c_str(), nullptr);
      if (!std::isfinite(t.real)) {
        fail(error_kind::overflow, t.column, "number out of range: " + t.text);
        return false;
      }
    }
    current_ = std::move(t);
    return true;
  }

  bool at_symbol(std::string_view symbol) const {
    return current_.kind == token_kind::symbol && current_.text == symbol;
  }

  // `and` / `&&`, `or` / `||`, `not` / `!` as this language writes them.
  bool at_logic(operation op) const {
    for (const auto& s : spellings)
      if (s.op == op)
        return lang_.logic == logic_spelling::words
                 ? current_.kind == token_kind::name && current_.text == s.word
                 : at_symbol(s.symbol);
    return false;
  }

  // Word logic reserves its words: they are never names.
  bool is_reserved(const token& t) const {
    if (lang_.logic != logic_spelling::words || t.kind != token_kind::name)
      return false;
    return std::any_of(std::begin(spellings), std::end(spellings),
                       [&](const operator_spelling& s) { return s.word == t.text; });
  }

  // --- nesting ----------------------------------------------------------------------------------
  bool enter(const token& at) {
    if (++depth_ > max_depth) {
      fail(error_kind::too_deep, at.column,
           "nested deeper than " + std::to_string(max_depth) + " levels");
      return false;
    }
    return true;
  }
  void leave() { --depth_; }

  // --- typing -----------------------------------------------------------------------------------
  bool check_operand(const node& operand, result_type needed, const token& at, bool both_sides) {
    if (!lang_.typed || type_of(operand) == needed)
      return true;
    fail(error_kind::type_mismatch, at.column,
         "'" + at.text + "' needs " + std::string{describe(needed)} +
           (both_sides ? " on both sides" : "") + ", found " +
           std::string{describe(type_of(operand))});
    return false;
  }

  parsed binary(operation op, const token& at, node left, node right) {
    const bool logic = op == operation::logical_and || op == operation::logical_or;
    const result_type needed = logic ? result_type::truth : result_type::number;
    if (!check_operand(left, needed, at, true) || !check_operand(right, needed, at, true))
      return std::nullopt;
    node out;
    out.op = op;
    out.column = at.column;
    out.operands.push_back(std::move(left));
    out.operands.push_back(std::move(right));
    return out;
  }

  // --- grammar ----------------------------------------------------------------------------------
  enum class chaining : std::uint8_t {
    left_associative, // a - b - c is (a - b) - c
    refused,          // comparisons: a < b < c reads as C would, (a < b) < c, which is almost
                      // never what was meant; one comparison per level, or parentheses
  };

  // One precedence level: `next` (op `next`)*, where `operator_here` says whether the current
  // token is one of the level's operators, and which.
  template <class Match>
  parsed parse_level(Match operator_here, parsed (parser::*next)(), chaining chain) {
    auto left = (this->*next)();
    for (bool first = true; left; first = false) {
      const std::optional<operation> op = operator_here();
      if (!op)
        break;
      if (!first && chain == chaining::refused)
        return fail(error_kind::syntax, current_.column,
                    "comparisons do not chain; write 'a < b " +
                      std::string{spelling(operation::logical_and, lang_)} + " b < c'");
      const token at = current_;
      if (!advance())
        return std::nullopt;
      auto right = (this->*next)();
      if (!right)
        return std::nullopt;
      left = binary(*op, at, std::move(*left), std::move(*right));
    }
    return left;
  }

  std::optional<operation> logic(operation op) const {
    return at_logic(op) ? std::optional{op} : std::nullopt;
  }

  parsed parse_or() {
    return parse_level([this] { return logic(operation::logical_or); }, &parser::parse_and,
                       chaining::left_associative);
  }
  parsed parse_and() {
    return parse_level([this] { return logic(operation::logical_and); }, &parser::parse_not,
                       chaining::left_associative);
  }

  // Word logic: `not` binds looser than comparisons, as in Python ("not a < b" is not (a < b)).
  // Symbol logic: '!' is a unary operator, as in C (parse_unary).
  parsed parse_not() {
    if (lang_.logic != logic_spelling::words || !at_logic(operation::logical_not))
      return parse_equality();
    const token at = current_;
    if (!enter(at) || !advance())
      return std::nullopt;
    auto operand = parse_not();
    leave();
    if (!operand || !check_operand(*operand, result_type::truth, at, false))
      return std::nullopt;
    node out;
    out.op = operation::logical_not;
    out.column = at.column;
    out.operands.push_back(std::move(*operand));
    return out;
  }

  struct symbol_operation {
    std::string_view symbol;
    operation op;
  };

  std::optional<operation> match(std::initializer_list<symbol_operation> ops) const {
    for (const auto& o : ops)
      if (at_symbol(o.symbol))
        return o.op;
    return std::nullopt;
  }

  parsed parse_equality() {
    return parse_level(
      [this] { return match({{"==", operation::equal}, {"!=", operation::not_equal}}); },
      &parser::parse_relation, chaining::refused);
  }
  parsed parse_relation() {
    return parse_level(
      [this] {
        return match({{"<=", operation::less_equal},
                      {">=", operation::greater_equal},
                      {"<", operation::less},
                      {">", operation::greater}});
      },
      &parser::parse_sum, chaining::refused);
  }
  parsed parse_sum() {
    return parse_level(
      [this] { return match({{"+", operation::add}, {"-", operation::subtract}}); },
      &parser::parse_product, chaining::left_associative);
  }
  parsed parse_product() {
    return parse_level(
      [this] {
        return match(
          {{"*", operation::multiply}, {"/", operation::divide}, {"%", operation::modulo}});
      },
      &parser::parse_unary, chaining::left_associative);
  }

  parsed parse_unary() {
    std::optional<operation> op;
    if (at_symbol("-"))
      op = operation::negate;
    else if (lang_.logic == logic_spelling::symbols && at_symbol("!"))
      op = operation::logical_not;
    else if (!at_symbol("+"))
      return parse_primary();
    const token at = current_;
    if (!enter(at) || !advance())
      return std::nullopt;
    auto operand = parse_unary();
    leave();
    if (!operand)
      return std::nullopt;
    const result_type needed =
      op == operation::logical_not ? result_type::truth : result_type::number;
    if (!check_operand(*operand, needed, at, false))
      return std::nullopt;
    if (!op)
      return operand; // unary '+'
    node out;
    out.op = *op;
    out.column = at.column;
    out.operands.push_back(std::move(*operand));
    return out;
  }

  parsed parse_primary() {
    const token at = current_;
    switch (at.kind) {
    case token_kind::number: {
      if (!advance())
        return std::nullopt;
      node out;
      out.op = operation::number;
      out.integer = at.integer;
      out.real = at.real;
      out.column = at.column;
      return out;
    }
    case token_kind::name: {
      if (is_reserved(at))
        break;
      if (!advance())
        return std::nullopt;
      if (current_.kind == token_kind::open)
        return parse_call(at);
      node out;
      out.op = operation::name;
      out.name = at.text;
      out.column = at.column;
      references_.push_back({at.text, at.column});
      return out;
    }
    case token_kind::open: {
      if (!enter(at) || !advance())
        return std::nullopt;
      auto inner = parse_or();
      leave();
      if (!inner)
        return std::nullopt;
      if (current_.kind != token_kind::close)
        return fail(error_kind::syntax, current_.column,
                    misspelled_logic(current_).value_or("expected ')' to close the '(' at column " +
                                                        std::to_string(at.column) + ", found " +
                                                        found(current_)));
      if (!advance())
        return std::nullopt;
      return inner;
    }
    default: break;
    }
    return fail(error_kind::syntax, at.column,
                "expected a number, a name or '(', found " + found(at));
  }

  // `name` has been read and current_ is its '('.
  parsed parse_call(const token& name) {
    const auto info = std::find_if(lang_.functions.begin(), lang_.functions.end(),
                                   [&](const function_info& f) { return f.name == name.text; });
    if (info == lang_.functions.end()) {
      std::string known;
      for (const auto& f : lang_.functions)
        known += (known.empty() ? "" : ", ") + std::string{f.name};
      return fail(
        error_kind::unknown_function, name.column,
        "unknown function '" + name.text + "' (" +
          (known.empty() ? std::string{"these expressions have no functions"} : "known: " + known) +
          ")");
    }
    node call;
    call.op = operation::call;
    call.fn = info->fn;
    call.name = name.text;
    call.column = name.column;
    if (!advance())
      return std::nullopt;
    if (current_.kind == token_kind::close) {
      if (!advance())
        return std::nullopt;
    } else {
      for (;;) {
        const token argument_start = current_;
        if (!enter(argument_start))
          return std::nullopt;
        auto argument = parse_or();
        leave();
        if (!argument)
          return std::nullopt;
        call.operands.push_back(std::move(*argument));
        if (current_.kind == token_kind::comma || current_.kind == token_kind::close) {
          const bool last = current_.kind == token_kind::close;
          if (!advance())
            return std::nullopt;
          if (last)
            break;
          continue;
        }
        return fail(error_kind::syntax, current_.column,
                    misspelled_logic(current_).value_or("expected ',' or ')' in the arguments of " +
                                                        name.text + "(), found " +
                                                        found(current_)));
      }
    }
    if (call.operands.size() != info->arity)
      return fail(error_kind::wrong_arity, name.column,
                  name.text + "() takes " + std::to_string(info->arity) + " argument" +
                    (info->arity == 1 ? "" : "s") + ", got " +
                    std::to_string(call.operands.size()));
    return call;
  }

  std::string_view text_;
  const language& lang_;
  std::size_t pos_ = 0;
  token current_;
  std::uint32_t depth_ = 0;
  bool failed_ = false;
  error error_;
  std::vector<name_reference> references_;
};

} // namespace

const language integer_language{number_syntax::integer, logic_spelling::symbols, false,
                                name_check::when_reached, integer_functions};
const language real_language{
  number_syntax::real, logic_spelling::words, true, name_check::before_evaluation, {}};

std::string_view spelling(operation op, const language& lang) {
  for (const auto& s : spellings)
    if (s.op == op)
      return lang.logic == logic_spelling::words && !s.word.empty() ? s.word : s.symbol;
  return "?";
}

expected<tree, error> parse(std::string_view text, const language& lang) {
  return parser{text, lang}.run();
}

} // namespace warpforge::expression::syntax
