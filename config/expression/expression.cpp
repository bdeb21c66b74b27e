#include "config/expression/expression.hpp"

#include "config/expression/syntax.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

namespace warpforge::expression {

constexpr vocabulary::enum_word<result_type> result_type_words[] = {
    {result_type::number, "number"},
    {result_type::truth, "truth"},
};
static_assert(vocabulary::covers(result_type_words, all_result_types));

std::string_view to_string(result_type type) { return vocabulary::word_of(result_type_words, type); }

std::optional<result_type> result_type_from_string(std::string_view text) {
  return vocabulary::value_of(result_type_words, text);
}

namespace {

using syntax::function;
using syntax::node;
using syntax::operation;

template <class Number>
constexpr bool is_integer = std::is_same_v<Number, std::int64_t>;

template <class Number>
const syntax::language& language_of() {
  return is_integer<Number> ? syntax::integer_language : syntax::real_language;
}

// Exact ceiling of a / b for any signs; callers exclude b == 0 and INT64_MIN / -1.
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  const std::int64_t quotient = a / b;
  const std::int64_t remainder = a % b;
  return (remainder != 0 && ((remainder > 0) == (b > 0))) ? quotient + 1 : quotient;
}

// One walk of the tree for either number type: int64 arithmetic is checked for overflow, double
// arithmetic for non-finite results. Errors about arithmetic quote the whole text.
template <class Number>
class evaluator {
public:
  using result = expected<Number, error>;

  evaluator(std::string_view text, const name_lookup<Number>& lookup)
      : text_(text), lookup_(lookup) {}

  result run(const node& n) {
    switch (n.op) {
    case operation::number:
      if constexpr (is_integer<Number>)
        return n.integer;
      else
        return n.real;
    case operation::name: return value_of(n);
    case operation::call: return call(n);
    case operation::negate:
    case operation::logical_not: return unary(n);
    case operation::logical_and:
    case operation::logical_or: {
      auto left = run(n.operands[0]);
      if (!left)
        return left;
      // Short-circuit: the right side is not evaluated when the left decides.
      const bool decided = n.op == operation::logical_and ? *left == 0 : *left != 0;
      if (decided)
        return truth(n.op == operation::logical_or);
      auto right = run(n.operands[1]);
      if (!right)
        return right;
      return truth(*right != 0);
    }
    default: break;
    }
    auto left = run(n.operands[0]);
    if (!left)
      return left;
    auto right = run(n.operands[1]);
    if (!right)
      return right;
    return binary(n, *left, *right);
  }

private:
  static Number truth(bool value) { return value ? Number{1} : Number{0}; }

  unexpected<error> fail(error_kind kind, std::string message, const node& at) const {
    return unexpected(
      error{kind, std::move(message) + " in \"" + std::string{text_} + "\"", at.column, {}});
  }

  std::string_view symbol(const node& n) const {
    return syntax::spelling(n.op, language_of<Number>());
  }

  result value_of(const node& n) const {
    auto value = lookup_ ? lookup_(n.name) : std::nullopt;
    if (!value)
      return unexpected(
        error{error_kind::unknown_name, "unknown name '" + n.name + "'", n.column, {n.name}});
    if constexpr (!is_integer<Number>)
      if (!std::isfinite(*value))
        return unexpected(
          error{error_kind::not_finite,
                "'" + n.name + "' is not a finite number (" + std::to_string(*value) + ")",
                n.column,
                {}});
    return *value;
  }

  result unary(const node& n) {
    auto operand = run(n.operands[0]);
    if (!operand)
      return operand;
    if (n.op == operation::logical_not)
      return truth(*operand == 0);
    if constexpr (is_integer<Number>)
      if (*operand == std::numeric_limits<std::int64_t>::min())
        return fail(error_kind::overflow, "unary '-' overflows int64", n);
    return -*operand;
  }

  result binary(const node& n, Number a, Number b) const {
    switch (n.op) {
    case operation::less: return truth(a < b);
    case operation::less_equal: return truth(a <= b);
    case operation::greater: return truth(a > b);
    case operation::greater_equal: return truth(a >= b);
    case operation::equal: return truth(a == b);
    case operation::not_equal: return truth(a != b);
    default: break;
    }
    if ((n.op == operation::divide || n.op == operation::modulo) && b == 0)
      return fail(error_kind::division_by_zero,
                  "'" + std::string{symbol(n)} + "' by zero (the right side is 0)", n);
    if constexpr (is_integer<Number>) {
      std::int64_t out = 0;
      bool overflowed = false;
      switch (n.op) {
      case operation::add: overflowed = __builtin_add_overflow(a, b, &out); break;
      case operation::subtract: overflowed = __builtin_sub_overflow(a, b, &out); break;
      case operation::multiply: overflowed = __builtin_mul_overflow(a, b, &out); break;
      case operation::divide:
      case operation::modulo:
        // C truncates toward zero and gives '%' the dividend's sign; INT64_MIN / -1 overflows.
        if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
          overflowed = n.op == operation::divide;
          out = 0;
        } else {
          out = n.op == operation::divide ? a / b : a % b;
        }
        break;
      default: break;
      }
      if (overflowed)
        return fail(error_kind::overflow, "'" + std::string{symbol(n)} + "' overflows int64", n);
      return out;
    } else {
      double out = 0.0;
      switch (n.op) {
      case operation::add: out = a + b; break;
      case operation::subtract: out = a - b; break;
      case operation::multiply: out = a * b; break;
      case operation::divide: out = a / b; break;
      case operation::modulo: out = std::fmod(a, b); break; // the dividend's sign, as for int64
      default: break;
      }
      if (!std::isfinite(out))
        return fail(error_kind::not_finite,
                    "'" + std::string{symbol(n)} + "' gives a number that is not finite", n);
      return out;
    }
  }

  result call(const node& n) {
    std::vector<Number> args;
    args.reserve(n.operands.size());
    for (const auto& operand : n.operands) {
      auto value = run(operand);
      if (!value)
        return value;
      args.push_back(*value);
    }
    if constexpr (is_integer<Number>)
      return integer_call(n, args);
    else
      return fail(error_kind::unknown_function, "unknown function '" + n.name + "'", n);
  }

  result integer_call(const node& n, std::span<const std::int64_t> args) const {
    constexpr std::int64_t max_pow2_exponent = 62; // 2^63 does not fit in int64
    const std::string name = n.name + "()";
    switch (n.fn) {
    case function::min: return std::min(args[0], args[1]);
    case function::max: return std::max(args[0], args[1]);
    case function::ceil_div:
    case function::round_up: {
      if (args[1] == 0)
        return fail(error_kind::division_by_zero, name + " by zero (its second argument is 0)", n);
      if (args[0] == std::numeric_limits<std::int64_t>::min() && args[1] == -1)
        return fail(error_kind::overflow, name + " overflows int64", n);
      const std::int64_t quotient = ceil_div(args[0], args[1]);
      if (n.fn == function::ceil_div)
        return quotient;
      std::int64_t out = 0;
      if (__builtin_mul_overflow(quotient, args[1], &out))
        return fail(error_kind::overflow, name + " overflows int64", n);
      return out;
    }
    case function::pow: {
      if (args[1] < 0)
        return fail(error_kind::domain,
                    "pow() needs an exponent >= 0, got " + std::to_string(args[1]), n);
      // Bases -1, 0 and 1 would loop for huge exponents: their powers are known.
      if (args[0] == 0 || args[0] == 1)
        return args[1] == 0 ? 1 : args[0];
      if (args[0] == -1)
        return args[1] % 2 == 1 ? -1 : 1;
      std::int64_t out = 1;
      for (std::int64_t i = 0; i < args[1]; ++i)
        if (__builtin_mul_overflow(out, args[0], &out))
          return fail(error_kind::overflow, "pow() overflows int64", n);
      return out;
    }
    case function::pow2:
      if (args[0] < 0 || args[0] > max_pow2_exponent)
        return fail(error_kind::domain,
                    "pow2() needs 0 <= a <= " + std::to_string(max_pow2_exponent) + ", got " +
                      std::to_string(args[0]),
                    n);
      return std::int64_t{1} << args[0];
    case function::log2: {
      if (args[0] < 1)
        return fail(error_kind::domain,
                    "log2() needs an argument >= 1, got " + std::to_string(args[0]), n);
      std::int64_t out = 0;
      for (std::int64_t v = args[0]; v > 1; v >>= 1)
        ++out;
      return out;
    }
    }
    return fail(error_kind::unknown_function, "unknown function '" + n.name + "'", n);
  }

  std::string_view text_;
  const name_lookup<Number>& lookup_;
};

} // namespace

template <class Number>
expected<basic_expression<Number>, error> basic_expression<Number>::parse(std::string_view text) {
  auto parsed = syntax::parse(text, language_of<Number>());
  if (!parsed)
    return unexpected(std::move(parsed).error());
  basic_expression out;
  out.text_ = std::string{text};
  out.type_ = parsed->type;
  out.references_ = std::move(parsed->references);
  out.root_ = std::move(parsed->root);
  return out;
}

template <class Number>
basic_expression<Number> basic_expression<Number>::constant(Number value) {
  basic_expression out;
  std::array<char, 32> digits{}; // the shortest text that reads back as `value`
  const auto written = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  out.text_.assign(digits.data(), written.ptr);
  auto number = std::make_shared<syntax::node>();
  number->op = operation::number;
  if constexpr (is_integer<Number>)
    number->integer = value;
  else
    number->real = value;
  number->column = 1;
  out.root_ = std::move(number);
  return out;
}

template <class Number>
expected<Number, error> basic_expression<Number>::evaluate(const lookup& names) const {
  if (!root_)
    return unexpected(error{error_kind::syntax, "empty expression", 1, {}});
  if (language_of<Number>().names == syntax::name_check::before_evaluation) {
    error missing{error_kind::unknown_name, "missing ", 0, {}};
    for (const auto& reference : references_) {
      const bool listed = std::find(missing.names.begin(), missing.names.end(), reference.name) !=
                          missing.names.end();
      if (listed || (names && names(reference.name)))
        continue;
      missing.message += (missing.names.empty() ? "" : ", ") + reference.name;
      missing.names.push_back(reference.name);
      if (missing.column == 0)
        missing.column = reference.column;
    }
    if (!missing.names.empty())
      return unexpected(std::move(missing));
  }
  return evaluator<Number>{text_, names}.run(*root_);
}

template <class Number>
expected<Number, error> basic_expression<Number>::evaluate(const values& names) const {
  return evaluate(lookup{[&names](std::string_view name) -> std::optional<Number> {
    const auto it = names.find(name);
    if (it == names.end())
      return std::nullopt;
    return it->second;
  }});
}

template <class Number>
std::vector<std::string> basic_expression<Number>::names() const {
  std::vector<std::string> out;
  for (const auto& reference : references_)
    if (std::find(out.begin(), out.end(), reference.name) == out.end())
      out.push_back(reference.name);
  return out;
}

template class basic_expression<std::int64_t>;
template class basic_expression<double>;

} // namespace warpforge::expression
