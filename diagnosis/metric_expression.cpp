#include "diagnosis/metric_expression.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace warpforge::diagnosis {

std::string_view to_string(expression_error_kind kind) {
  switch (kind) {
  case expression_error_kind::syntax: return "syntax";
  case expression_error_kind::type_mismatch: return "type_mismatch";
  case expression_error_kind::too_deep: return "too_deep";
  }
  return "syntax";
}

std::optional<expression_error_kind> expression_error_kind_from_string(std::string_view text) {
  for (auto kind : all_expression_error_kinds)
    if (to_string(kind) == text)
      return kind;
  return std::nullopt;
}

std::string_view to_string(evaluation_failure failure) {
  switch (failure) {
  case evaluation_failure::missing_metrics: return "missing_metrics";
  case evaluation_failure::division_by_zero: return "division_by_zero";
  case evaluation_failure::not_finite: return "not_finite";
  }
  return "missing_metrics";
}

std::optional<evaluation_failure> evaluation_failure_from_string(std::string_view text) {
  for (auto failure : all_evaluation_failures)
    if (to_string(failure) == text)
      return failure;
  return std::nullopt;
}

std::string_view to_string(expression_type type) {
  return type == expression_type::number ? "a number" : "a truth value";
}

enum class op : std::uint8_t {
  number, key, negate, logical_not,
  add, subtract, multiply, divide,
  less, less_equal, greater, greater_equal, equal, not_equal,
  logical_and, logical_or,
};

struct metric_expression::node {
  op what = op::number;
  double value = 0.0;     // op::number
  std::string key;        // op::key
  std::uint32_t column = 0;
  std::unique_ptr<node> left;
  std::unique_ptr<node> right;
};

namespace {

using node = metric_expression::node;

enum class token_kind : std::uint8_t { number, key, op, open, close, end };

struct token {
  token_kind kind = token_kind::end;
  std::string text;
  double value = 0.0;
  std::uint32_t column = 0; // 1-based
};

bool is_key_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_key_char(char c) { return is_key_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class parser {
public:
  explicit parser(std::string_view text) : text_(text) {}

  expected<std::unique_ptr<node>, expression_error>
  run(expression_type& type, std::vector<metric_expression::key_reference>& refs) {
    refs_ = &refs;
    if (!advance())
      return unexpected(error_);
    auto root = parse_or();
    if (!root)
      return unexpected(error_);
    if (current_.kind != token_kind::end)
      return unexpected(
          make_error(expression_error_kind::syntax, current_.column,
                     "unexpected '" + current_.text + "' after a complete expression"));
    type = type_of(*root->get());
    return std::move(*root);
  }

private:
  using result = std::optional<std::unique_ptr<node>>;

  static expression_type type_of(const node& n) {
    switch (n.what) {
    case op::number:
    case op::key:
    case op::negate:
    case op::add:
    case op::subtract:
    case op::multiply:
    case op::divide: return expression_type::number;
    default: return expression_type::truth;
    }
  }

  expression_error make_error(expression_error_kind kind, std::uint32_t column,
                              std::string message) {
    error_ = expression_error{kind, std::move(message), column};
    return error_;
  }

  // Reads the next token into current_; false (with error_) on a character that starts nothing.
  bool advance() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    token t;
    t.column = static_cast<std::uint32_t>(pos_ + 1);
    if (pos_ >= text_.size()) {
      t.kind = token_kind::end;
      t.text = "end of expression";
      current_ = std::move(t);
      return true;
    }
    const char c = text_[pos_];
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
      std::size_t end = pos_;
      while (end < text_.size() && is_digit(text_[end]))
        ++end;
      if (end < text_.size() && text_[end] == '.') {
        ++end;
        while (end < text_.size() && is_digit(text_[end]))
          ++end;
      }
      if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
        std::size_t exp = end + 1;
        if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-'))
          ++exp;
        if (exp >= text_.size() || !is_digit(text_[exp])) {
          make_error(expression_error_kind::syntax, static_cast<std::uint32_t>(end + 1),
                     "an exponent needs digits, as in 1e9 or 2.5e-3");
          return false;
        }
        while (exp < text_.size() && is_digit(text_[exp]))
          ++exp;
        end = exp;
      }
      if (end < text_.size() && is_key_char(text_[end])) {
        make_error(expression_error_kind::syntax, static_cast<std::uint32_t>(end + 1),
                   "a number runs into a name: '" +
                       std::string{text_.substr(pos_, end - pos_ + 1)} + "'");
        return false;
      }
      t.kind = token_kind::number;
      t.text = std::string{text_.substr(pos_, end - pos_)};
      t.value = std::strtod(t.text.c_str(), nullptr);
      if (!std::isfinite(t.value)) {
        make_error(expression_error_kind::syntax, t.column, "number out of range: " + t.text);
        return false;
      }
      pos_ = end;
      current_ = std::move(t);
      return true;
    }
    if (is_key_start(c)) {
      std::size_t end = pos_;
      while (end < text_.size() && is_key_char(text_[end]))
        ++end;
      t.text = std::string{text_.substr(pos_, end - pos_)};
      t.kind =
          (t.text == "and" || t.text == "or" || t.text == "not") ? token_kind::op : token_kind::key;
      pos_ = end;
      current_ = std::move(t);
      return true;
    }
    if (c == '(' || c == ')') {
      t.kind = c == '(' ? token_kind::open : token_kind::close;
      t.text = std::string(1, c);
      ++pos_;
      current_ = std::move(t);
      return true;
    }
    const std::string_view two = text_.substr(pos_, 2);
    if (two == "<=" || two == ">=" || two == "==" || two == "!=") {
      t.kind = token_kind::op;
      t.text = std::string{two};
      pos_ += 2;
      current_ = std::move(t);
      return true;
    }
    if (two == "&&" || two == "||") {
      make_error(expression_error_kind::syntax, t.column,
                 "'" + std::string{two} + "' is not an operator here; write '" +
                   (two == "&&" ? "and" : "or") + "'");
      return false;
    }
    if (c == '+' || c == '-' || c == '*' || c == '/' || c == '<' || c == '>') {
      t.kind = token_kind::op;
      t.text = std::string(1, c);
      ++pos_;
      current_ = std::move(t);
      return true;
    }
    if (c == '!') {
      make_error(expression_error_kind::syntax, t.column,
                 "'!' is not an operator here; write 'not'");
      return false;
    }
    if (c == '=') {
      make_error(expression_error_kind::syntax, t.column, "'=' is not an operator; write '=='");
      return false;
    }
    make_error(expression_error_kind::syntax, t.column,
               "unexpected character '" + std::string(1, c) + "'");
    return false;
  }

  bool at_op(std::string_view text) const {
    return current_.kind == token_kind::op && current_.text == text;
  }

  // Builds a binary node after checking that both operands have the type `operands`.
  result binary(op what, const token& at, std::unique_ptr<node> left, std::unique_ptr<node> right,
                expression_type operands) {
    for (const node* side : {left.get(), right.get()}) {
      if (type_of(*side) != operands) {
        make_error(expression_error_kind::type_mismatch, at.column,
                   "'" + at.text + "' needs " + std::string{to_string(operands)} +
                       " on both sides, found " + std::string{to_string(type_of(*side))});
        return std::nullopt;
      }
    }
    auto n = std::make_unique<node>();
    n->what = what;
    n->column = at.column;
    n->left = std::move(left);
    n->right = std::move(right);
    return n;
  }

  result parse_or() {
    auto left = parse_and();
    while (left && at_op("or")) {
      const token at = current_;
      if (!advance())
        return std::nullopt;
      auto right = parse_and();
      if (!right)
        return std::nullopt;
      left =
          binary(op::logical_or, at, std::move(*left), std::move(*right), expression_type::truth);
    }
    return left;
  }

  result parse_and() {
    auto left = parse_not();
    while (left && at_op("and")) {
      const token at = current_;
      if (!advance())
        return std::nullopt;
      auto right = parse_not();
      if (!right)
        return std::nullopt;
      left =
          binary(op::logical_and, at, std::move(*left), std::move(*right), expression_type::truth);
    }
    return left;
  }

  result parse_not() {
    if (!at_op("not"))
      return parse_compare();
    const token at = current_;
    if (!enter(at) || !advance())
      return std::nullopt;
    auto operand = parse_not();
    --depth_;
    if (!operand)
      return std::nullopt;
    if (type_of(**operand) != expression_type::truth) {
      make_error(expression_error_kind::type_mismatch, at.column,
                 "'not' needs a truth value, found a number");
      return std::nullopt;
    }
    auto n = std::make_unique<node>();
    n->what = op::logical_not;
    n->column = at.column;
    n->left = std::move(*operand);
    return n;
  }

  static std::optional<op> comparison(const token& t) {
    if (t.kind != token_kind::op)
      return std::nullopt;
    if (t.text == "<") return op::less;
    if (t.text == "<=") return op::less_equal;
    if (t.text == ">") return op::greater;
    if (t.text == ">=") return op::greater_equal;
    if (t.text == "==") return op::equal;
    if (t.text == "!=") return op::not_equal;
    return std::nullopt;
  }

  result parse_compare() {
    auto left = parse_sum();
    if (!left)
      return std::nullopt;
    const auto what = comparison(current_);
    if (!what)
      return left;
    const token at = current_;
    if (!advance())
      return std::nullopt;
    auto right = parse_sum();
    if (!right)
      return std::nullopt;
    if (comparison(current_)) {
      make_error(expression_error_kind::syntax, current_.column,
                 "comparisons do not chain; write 'a < b and b < c'");
      return std::nullopt;
    }
    return binary(*what, at, std::move(*left), std::move(*right), expression_type::number);
  }

  result parse_sum() {
    auto left = parse_product();
    while (left && (at_op("+") || at_op("-"))) {
      const token at = current_;
      if (!advance())
        return std::nullopt;
      auto right = parse_product();
      if (!right)
        return std::nullopt;
      left = binary(at.text == "+" ? op::add : op::subtract, at, std::move(*left),
                    std::move(*right), expression_type::number);
    }
    return left;
  }

  result parse_product() {
    auto left = parse_unary();
    while (left && (at_op("*") || at_op("/"))) {
      const token at = current_;
      if (!advance())
        return std::nullopt;
      auto right = parse_unary();
      if (!right)
        return std::nullopt;
      left = binary(at.text == "*" ? op::multiply : op::divide, at, std::move(*left),
                    std::move(*right), expression_type::number);
    }
    return left;
  }

  bool enter(const token& at) {
    if (++depth_ > max_metric_expression_depth) {
      make_error(expression_error_kind::too_deep, at.column,
                 "nested deeper than " + std::to_string(max_metric_expression_depth) + " levels");
      return false;
    }
    return true;
  }

  result parse_unary() {
    if (!at_op("-"))
      return parse_primary();
    const token at = current_;
    if (!enter(at) || !advance())
      return std::nullopt;
    auto operand = parse_unary();
    --depth_;
    if (!operand)
      return std::nullopt;
    if (type_of(**operand) != expression_type::number) {
      make_error(expression_error_kind::type_mismatch, at.column,
                 "'-' needs a number, found a truth value");
      return std::nullopt;
    }
    auto n = std::make_unique<node>();
    n->what = op::negate;
    n->column = at.column;
    n->left = std::move(*operand);
    return n;
  }

  result parse_primary() {
    const token at = current_;
    switch (at.kind) {
    case token_kind::number: {
      if (!advance())
        return std::nullopt;
      auto n = std::make_unique<node>();
      n->what = op::number;
      n->value = at.value;
      n->column = at.column;
      return n;
    }
    case token_kind::key: {
      if (!advance())
        return std::nullopt;
      auto n = std::make_unique<node>();
      n->what = op::key;
      n->key = at.text;
      n->column = at.column;
      refs_->push_back({at.text, at.column});
      return n;
    }
    case token_kind::open: {
      if (!enter(at) || !advance())
        return std::nullopt;
      auto inner = parse_or();
      --depth_;
      if (!inner)
        return std::nullopt;
      if (current_.kind != token_kind::close) {
        make_error(expression_error_kind::syntax, current_.column,
                   "expected ')' to close the '(' at column " + std::to_string(at.column) +
                     ", found " + describe(current_));
        return std::nullopt;
      }
      if (!advance())
        return std::nullopt;
      return inner;
    }
    default:
      make_error(expression_error_kind::syntax, at.column,
                 "expected a number, a metric key or '(', found " + describe(at));
      return std::nullopt;
    }
  }

  static std::string describe(const token& t) {
    return t.kind == token_kind::end ? t.text : "'" + t.text + "'";
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  token current_;
  std::uint32_t depth_ = 0;
  expression_error error_;
  std::vector<metric_expression::key_reference>* refs_ = nullptr;
};

struct evaluator {
  const metric_values& values;
  std::string_view text;
  std::optional<evaluation_problem> problem;

  double fail(evaluation_failure failure, std::string message) {
    if (!problem)
      problem = evaluation_problem{failure, {}, std::move(message)};
    return 0.0;
  }

  double run(const node& n) {
    if (problem)
      return 0.0;
    switch (n.what) {
    case op::number: return n.value;
    case op::key: return values.find(n.key)->second; // presence checked before evaluation
    case op::negate: return -run(*n.left);
    case op::logical_not: return run(*n.left) != 0.0 ? 0.0 : 1.0;
    case op::logical_and: return run(*n.left) != 0.0 && run(*n.right) != 0.0 ? 1.0 : 0.0;
    case op::logical_or: return run(*n.left) != 0.0 || run(*n.right) != 0.0 ? 1.0 : 0.0;
    default: break;
    }
    const double a = run(*n.left);
    const double b = run(*n.right);
    if (problem)
      return 0.0;
    switch (n.what) {
    case op::add: return a + b;
    case op::subtract: return a - b;
    case op::multiply: return a * b;
    case op::divide:
      if (b == 0.0)
        return fail(evaluation_failure::division_by_zero,
                    "division by zero at column " + std::to_string(n.column) + " of '" +
                      std::string{text} + "'");
      return a / b;
    case op::less: return a < b ? 1.0 : 0.0;
    case op::less_equal: return a <= b ? 1.0 : 0.0;
    case op::greater: return a > b ? 1.0 : 0.0;
    case op::greater_equal: return a >= b ? 1.0 : 0.0;
    case op::equal: return a == b ? 1.0 : 0.0;
    case op::not_equal: return a != b ? 1.0 : 0.0;
    default: return 0.0;
    }
  }
};

} // namespace

expected<metric_expression, expression_error> metric_expression::parse(std::string_view text) {
  metric_expression out;
  out.text_ = std::string{text};
  parser p{out.text_};
  auto root = p.run(out.type_, out.references_);
  if (!root)
    return unexpected(std::move(root).error());
  out.root_ = std::shared_ptr<const node>{std::move(*root)};
  return out;
}

std::vector<std::string> metric_expression::keys() const {
  std::vector<std::string> out;
  for (const auto& ref : references_) {
    bool seen = false;
    for (const auto& key : out)
      seen = seen || key == ref.key;
    if (!seen)
      out.push_back(ref.key);
  }
  return out;
}

expected<double, evaluation_problem>
metric_expression::evaluate(const metric_values& values) const {
  if (root_ == nullptr)
    return unexpected(evaluation_problem{evaluation_failure::missing_metrics, {},
                                         "empty expression"});
  evaluation_problem missing{evaluation_failure::missing_metrics, {}, {}};
  for (const auto& key : keys()) {
    const auto found = values.find(key);
    if (found == values.end()) {
      missing.missing.push_back(key);
    } else if (!std::isfinite(found->second)) {
      return unexpected(evaluation_problem{evaluation_failure::not_finite, {},
                                           "metric '" + key + "' is not a finite number"});
    }
  }
  if (!missing.missing.empty()) {
    missing.message = "missing ";
    for (std::size_t i = 0; i < missing.missing.size(); ++i)
      missing.message += (i == 0 ? "" : ", ") + missing.missing[i];
    return unexpected(std::move(missing));
  }
  evaluator run{values, text_, std::nullopt};
  const double result = run.run(*root_);
  if (run.problem)
    return unexpected(std::move(*run.problem));
  if (!std::isfinite(result))
    return unexpected(evaluation_problem{evaluation_failure::not_finite, {},
                                         "'" + text_ + "' is not a finite number"});
  return result;
}

} // namespace warpforge::diagnosis
