#include "config/expression.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

namespace warpforge::config {

std::string_view to_string(expression_error_kind kind) {
  switch (kind) {
  case expression_error_kind::syntax: return "syntax";
  case expression_error_kind::unknown_name: return "unknown_name";
  case expression_error_kind::unknown_function: return "unknown_function";
  case expression_error_kind::wrong_arity: return "wrong_arity";
  case expression_error_kind::division_by_zero: return "division_by_zero";
  case expression_error_kind::overflow: return "overflow";
  case expression_error_kind::domain: return "domain";
  }
  return "?";
}

std::optional<expression_error_kind> expression_error_kind_from_string(std::string_view text) {
  for (const auto kind : all_expression_error_kinds)
    if (to_string(kind) == text)
      return kind;
  return std::nullopt;
}

enum class operation : std::uint8_t {
  add, subtract, multiply, divide, modulo,
  less, less_equal, greater, greater_equal, equal, not_equal,
  logical_and, logical_or,
  negate, logical_not,
};

enum class function : std::uint8_t { ceil_div, round_up, min, max, pow, pow2, log2 };

struct expression::node {
  enum class kind : std::uint8_t { number, name, unary, binary, call };
  kind what = kind::number;
  std::int64_t number = 0;   // kind::number
  std::string name;          // kind::name; kind::call: the function's name
  operation op = operation::add; // kind::unary, kind::binary
  function fn = function::min;   // kind::call
  std::vector<node> operands;    // unary: 1, binary: 2, call: its arguments
  std::uint32_t column = 0;      // 1-based column of the token, for errors
};

namespace {

using node = expression::node;
using result = expected<std::int64_t, expression_error>;

struct function_info {
  std::string_view name;
  function fn;
  std::size_t arity;
};

constexpr function_info functions[] = {
  {"ceil_div", function::ceil_div, 2}, {"round_up", function::round_up, 2},
  {"min", function::min, 2},           {"max", function::max, 2},
  {"pow", function::pow, 2},           {"pow2", function::pow2, 1},
  {"log2", function::log2, 1},
};

std::string_view symbol(operation op) {
  switch (op) {
  case operation::add: return "+";
  case operation::subtract: return "-";
  case operation::multiply: return "*";
  case operation::divide: return "/";
  case operation::modulo: return "%";
  case operation::less: return "<";
  case operation::less_equal: return "<=";
  case operation::greater: return ">";
  case operation::greater_equal: return ">=";
  case operation::equal: return "==";
  case operation::not_equal: return "!=";
  case operation::logical_and: return "&&";
  case operation::logical_or: return "||";
  case operation::negate: return "-";
  case operation::logical_not: return "!";
  }
  return "?";
}

unexpected<expression_error> fail(expression_error_kind kind, std::string message,
                                  std::uint32_t column) {
  return unexpected(expression_error{kind, std::move(message), column});
}

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Recursive descent over the text; one method per grammar rule (see expression.hpp).
class parser {
public:
  explicit parser(std::string_view text) : text_(text) {}

  expected<node, expression_error> parse_all() {
    skip_space();
    if (at_end())
      return fail(expression_error_kind::syntax, "empty expression", 1);
    auto root = parse_or();
    if (!root)
      return root;
    skip_space();
    if (!at_end())
      return fail(expression_error_kind::syntax,
                  "unexpected '" + std::string{text_.substr(pos_, 1)} +
                    "' after the end of the expression",
                  column());
    return root;
  }

private:
  using parsed = expected<node, expression_error>;
  struct binary_token {
    std::string_view text;
    operation op;
  };

  bool at_end() const { return pos_ >= text_.size(); }
  std::uint32_t column() const { return static_cast<std::uint32_t>(pos_ + 1); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0)
      ++pos_;
  }
  bool next_is(std::string_view token) const { return text_.substr(pos_, token.size()) == token; }

  // Matches one of `tokens` (longest first, so "<=" wins over "<") at the current position.
  std::optional<operation> match(std::initializer_list<binary_token> tokens) {
    skip_space();
    for (const auto& token : tokens) {
      if (!next_is(token.text))
        continue;
      pos_ += token.text.size();
      return token.op;
    }
    return std::nullopt;
  }

  template <class Next>
  parsed parse_left_assoc(std::initializer_list<binary_token> tokens, Next next) {
    auto left = (this->*next)();
    if (!left)
      return left;
    for (;;) {
      skip_space();
      const std::uint32_t op_column = column();
      const auto op = match(tokens);
      if (!op)
        return left;
      auto right = (this->*next)();
      if (!right)
        return right;
      node combined;
      combined.what = node::kind::binary;
      combined.op = *op;
      combined.column = op_column;
      combined.operands.push_back(std::move(*left));
      combined.operands.push_back(std::move(*right));
      left = std::move(combined);
    }
  }

  parsed parse_or() { return parse_left_assoc({{"||", operation::logical_or}}, &parser::parse_and); }
  parsed parse_and() {
    return parse_left_assoc({{"&&", operation::logical_and}}, &parser::parse_equal);
  }
  parsed parse_equal() {
    return parse_left_assoc({{"==", operation::equal}, {"!=", operation::not_equal}},
                            &parser::parse_compare);
  }
  parsed parse_compare() {
    return parse_left_assoc({{"<=", operation::less_equal},
                             {">=", operation::greater_equal},
                             {"<", operation::less},
                             {">", operation::greater}},
                            &parser::parse_sum);
  }
  parsed parse_sum() {
    return parse_left_assoc({{"+", operation::add}, {"-", operation::subtract}},
                            &parser::parse_product);
  }
  parsed parse_product() {
    return parse_left_assoc(
      {{"*", operation::multiply}, {"/", operation::divide}, {"%", operation::modulo}},
      &parser::parse_unary);
  }

  parsed parse_unary() {
    skip_space();
    const std::uint32_t op_column = column();
    std::optional<operation> op;
    if (next_is("-"))
      op = operation::negate;
    else if (next_is("!") && !next_is("!="))
      op = operation::logical_not;
    else if (next_is("+")) {
      ++pos_;
      return descend(&parser::parse_unary);
    }
    if (!op)
      return parse_primary();
    ++pos_;
    auto operand = descend(&parser::parse_unary);
    if (!operand)
      return operand;
    node unary;
    unary.what = node::kind::unary;
    unary.op = *op;
    unary.column = op_column;
    unary.operands.push_back(std::move(*operand));
    return unary;
  }

  parsed descend(parsed (parser::*rule)()) {
    if (++depth_ > max_expression_depth)
      return fail(expression_error_kind::syntax,
                  "nested deeper than " + std::to_string(max_expression_depth) + " levels",
                  column());
    auto out = (this->*rule)();
    --depth_;
    return out;
  }

  parsed parse_primary() {
    skip_space();
    const std::uint32_t start = column();
    if (at_end())
      return fail(expression_error_kind::syntax, "expected a number, a name or '(' at the end",
                  start);
    const char c = text_[pos_];
    if (is_digit(c))
      return parse_number();
    if (is_name_start(c))
      return parse_name_or_call();
    if (c == '(') {
      ++pos_;
      auto inner = descend(&parser::parse_or);
      if (!inner)
        return inner;
      skip_space();
      if (!next_is(")"))
        return fail(expression_error_kind::syntax,
                    "expected ')' to close the '(' at column " + std::to_string(start),
                    column());
      ++pos_;
      return inner;
    }
    return fail(expression_error_kind::syntax,
                "expected a number, a name or '(', found '" + std::string(1, c) + "'", start);
  }

  parsed parse_number() {
    const std::uint32_t start = column();
    std::int64_t value = 0;
    constexpr std::int64_t radix = 10;
    while (!at_end() && (is_digit(text_[pos_]) || text_[pos_] == '_')) {
      const char c = text_[pos_++];
      if (c == '_')
        continue;
      if (__builtin_mul_overflow(value, radix, &value) ||
          __builtin_add_overflow(value, static_cast<std::int64_t>(c - '0'), &value))
        return fail(expression_error_kind::overflow, "integer literal does not fit in int64",
                    start);
    }
    if (!at_end() && is_name_char(text_[pos_]))
      return fail(expression_error_kind::syntax,
                  "a number runs into the letter '" + std::string(1, text_[pos_]) + "'",
                  column());
    node number;
    number.what = node::kind::number;
    number.number = value;
    number.column = start;
    return number;
  }

  parsed parse_name_or_call() {
    const std::uint32_t start = column();
    const std::size_t begin = pos_;
    while (!at_end() && is_name_char(text_[pos_]))
      ++pos_;
    std::string name{text_.substr(begin, pos_ - begin)};
    skip_space();
    if (!next_is("(")) {
      node variable;
      variable.what = node::kind::name;
      variable.name = std::move(name);
      variable.column = start;
      return variable;
    }
    const auto* info = std::find_if(std::begin(functions), std::end(functions),
                                    [&](const function_info& f) { return f.name == name; });
    if (info == std::end(functions)) {
      std::string known;
      for (const auto& f : functions)
        known += (known.empty() ? "" : ", ") + std::string{f.name};
      return fail(expression_error_kind::unknown_function,
                  "unknown function '" + name + "' (known: " + known + ")", start);
    }
    ++pos_; // '('
    node call;
    call.what = node::kind::call;
    call.fn = info->fn;
    call.name = name;
    call.column = start;
    skip_space();
    if (next_is(")")) {
      ++pos_;
    } else {
      for (;;) {
        auto argument = descend(&parser::parse_or);
        if (!argument)
          return argument;
        call.operands.push_back(std::move(*argument));
        skip_space();
        if (next_is(",")) {
          ++pos_;
          continue;
        }
        if (next_is(")")) {
          ++pos_;
          break;
        }
        return fail(expression_error_kind::syntax,
                    "expected ',' or ')' in the arguments of " + name + "()", column());
      }
    }
    if (call.operands.size() != info->arity)
      return fail(expression_error_kind::wrong_arity,
                  name + "() takes " + std::to_string(info->arity) + " argument" +
                    (info->arity == 1 ? "" : "s") + ", got " +
                    std::to_string(call.operands.size()),
                  start);
    return call;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t depth_ = 0;
};

result overflow_at(const node& at, std::string_view what) {
  return fail(expression_error_kind::overflow, std::string{what} + " overflows int64", at.column);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  // Exact ceiling for any signs; callers exclude b == 0 and INT64_MIN / -1.
  const std::int64_t quotient = a / b;
  const std::int64_t remainder = a % b;
  return (remainder != 0 && ((remainder > 0) == (b > 0))) ? quotient + 1 : quotient;
}

result evaluate_node(const node& n, const variable_lookup& lookup);

result evaluate_binary(const node& n, const variable_lookup& lookup) {
  auto left = evaluate_node(n.operands[0], lookup);
  if (!left)
    return left;
  // Short-circuit: the right side is not evaluated when the left decides.
  if (n.op == operation::logical_and && *left == 0)
    return std::int64_t{0};
  if (n.op == operation::logical_or && *left != 0)
    return std::int64_t{1};
  auto right = evaluate_node(n.operands[1], lookup);
  if (!right)
    return right;
  const std::int64_t a = *left;
  const std::int64_t b = *right;
  std::int64_t out = 0;
  switch (n.op) {
  case operation::add:
    if (__builtin_add_overflow(a, b, &out))
      return overflow_at(n, "'+'");
    return out;
  case operation::subtract:
    if (__builtin_sub_overflow(a, b, &out))
      return overflow_at(n, "'-'");
    return out;
  case operation::multiply:
    if (__builtin_mul_overflow(a, b, &out))
      return overflow_at(n, "'*'");
    return out;
  case operation::divide:
  case operation::modulo:
    if (b == 0)
      return fail(expression_error_kind::division_by_zero,
                  "'" + std::string{symbol(n.op)} + "' by zero (the right side is 0)", n.column);
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
      if (n.op == operation::modulo)
        return std::int64_t{0};
      return overflow_at(n, "'/'");
    }
    return n.op == operation::divide ? a / b : a % b;
  case operation::less: return std::int64_t{a < b};
  case operation::less_equal: return std::int64_t{a <= b};
  case operation::greater: return std::int64_t{a > b};
  case operation::greater_equal: return std::int64_t{a >= b};
  case operation::equal: return std::int64_t{a == b};
  case operation::not_equal: return std::int64_t{a != b};
  case operation::logical_and:
  case operation::logical_or: return std::int64_t{b != 0};
  case operation::negate:
  case operation::logical_not: break;
  }
  return fail(expression_error_kind::syntax, "not a binary operator", n.column);
}

result evaluate_call(const node& n, const variable_lookup& lookup) {
  std::vector<std::int64_t> args;
  args.reserve(n.operands.size());
  for (const auto& operand : n.operands) {
    auto value = evaluate_node(operand, lookup);
    if (!value)
      return value;
    args.push_back(*value);
  }
  constexpr std::int64_t max_pow2_exponent = 62; // 2^63 does not fit in int64
  switch (n.fn) {
  case function::min: return std::min(args[0], args[1]);
  case function::max: return std::max(args[0], args[1]);
  case function::ceil_div:
  case function::round_up: {
    if (args[1] == 0)
      return fail(expression_error_kind::division_by_zero,
                  n.name + "() by zero (its second argument is 0)", n.column);
    if (args[0] == std::numeric_limits<std::int64_t>::min() && args[1] == -1)
      return overflow_at(n, n.name + "()");
    const std::int64_t quotient = ceil_div(args[0], args[1]);
    if (n.fn == function::ceil_div)
      return quotient;
    std::int64_t out = 0;
    if (__builtin_mul_overflow(quotient, args[1], &out))
      return overflow_at(n, n.name + "()");
    return out;
  }
  case function::pow: {
    if (args[1] < 0)
      return fail(expression_error_kind::domain,
                  "pow() needs an exponent >= 0, got " + std::to_string(args[1]), n.column);
    std::int64_t out = 1;
    for (std::int64_t i = 0; i < args[1]; ++i) {
      if (__builtin_mul_overflow(out, args[0], &out))
        return overflow_at(n, "pow()");
      // 0 and 1 are fixed points; base -1 reaches 1 after two factors, parity decides below.
      if (out == 0 || out == 1)
        break;
    }
    if (args[0] == -1)
      return args[1] % 2 == 1 ? std::int64_t{-1} : std::int64_t{1};
    return out;
  }
  case function::pow2:
    if (args[0] < 0 || args[0] > max_pow2_exponent)
      return fail(expression_error_kind::domain,
                  "pow2() needs 0 <= a <= " + std::to_string(max_pow2_exponent) + ", got " +
                    std::to_string(args[0]),
                  n.column);
    return std::int64_t{1} << args[0];
  case function::log2: {
    if (args[0] < 1)
      return fail(expression_error_kind::domain,
                  "log2() needs an argument >= 1, got " + std::to_string(args[0]), n.column);
    std::int64_t out = 0;
    for (std::int64_t v = args[0]; v > 1; v >>= 1)
      ++out;
    return out;
  }
  }
  return fail(expression_error_kind::unknown_function, "unknown function " + n.name, n.column);
}

result evaluate_node(const node& n, const variable_lookup& lookup) {
  switch (n.what) {
  case node::kind::number: return n.number;
  case node::kind::name: {
    auto value = lookup ? lookup(n.name) : std::nullopt;
    if (!value)
      return fail(expression_error_kind::unknown_name, "unknown name '" + n.name + "'", n.column);
    return *value;
  }
  case node::kind::unary: {
    auto operand = evaluate_node(n.operands[0], lookup);
    if (!operand)
      return operand;
    if (n.op == operation::logical_not)
      return std::int64_t{*operand == 0};
    if (*operand == std::numeric_limits<std::int64_t>::min())
      return overflow_at(n, "unary '-'");
    return -*operand;
  }
  case node::kind::binary: return evaluate_binary(n, lookup);
  case node::kind::call: return evaluate_call(n, lookup);
  }
  return fail(expression_error_kind::syntax, "empty expression", 1);
}

void collect_names(const node& n, std::vector<std::string>& out) {
  if (n.what == node::kind::name &&
      std::find(out.begin(), out.end(), n.name) == out.end())
    out.push_back(n.name);
  for (const auto& operand : n.operands)
    collect_names(operand, out);
}

} // namespace

expected<expression, expression_error> expression::parse(std::string_view text) {
  parser p{text};
  auto root = p.parse_all();
  if (!root)
    return unexpected(std::move(root).error());
  expression out;
  out.text_ = std::string{text};
  out.root_ = std::make_shared<const node>(std::move(*root));
  return out;
}

expression expression::constant(std::int64_t value) {
  expression out;
  out.text_ = std::to_string(value);
  node number;
  number.what = node::kind::number;
  number.number = value;
  number.column = 1;
  out.root_ = std::make_shared<const node>(std::move(number));
  return out;
}

expected<std::int64_t, expression_error>
expression::evaluate(const variable_lookup& lookup) const {
  if (!root_)
    return fail(expression_error_kind::syntax, "empty expression", 1);
  return evaluate_node(*root_, lookup);
}

expected<std::int64_t, expression_error>
expression::evaluate(const variable_map& variables) const {
  return evaluate([&variables](std::string_view name) -> std::optional<std::int64_t> {
    const auto it = variables.find(name);
    if (it == variables.end())
      return std::nullopt;
    return it->second;
  });
}

std::vector<std::string> expression::names() const {
  std::vector<std::string> out;
  if (root_)
    collect_names(*root_, out);
  return out;
}

} // namespace warpforge::config
