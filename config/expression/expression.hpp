#pragma once
// The expression language of warpforge, in its two typings: parsed once into a tree, evaluated
// many times. One parser, one evaluator, one place for names, precedence and errors
// (syntax.hpp); the number type picks the language.
//
//   integer_expression (specs: counts, launch geometry, shared memory, scalar values,
//   tunable constraints; config/)
//     auto e = integer_expression::parse("ceil_div(N, BLOCK) * 2");
//     auto v = e->evaluate(integer_values{{"N", 1000}, {"BLOCK", 256}});     // 8
//   64-bit integers, C operators (|| && == != < <= > >= + - * / % and unary - + !), untyped: a
//   comparison or logic is 1 or 0. '/' truncates toward zero, '%' takes the dividend's sign (C);
//   overflow is an error, never wrap-around. A name is looked up when evaluation reaches it, so
//   "B != 0 && N / B > 2" is safe and "0 && X" is 0 without X. Functions: ceil_div(a, b),
//   round_up(a, b) (ceil_div(a, b) * b), min(a, b), max(a, b), pow(a, b) (b >= 0),
//   pow2(a) (2^a, 0 <= a <= 62), log2(a) (floor, a >= 1).
//
//   real_expression (diagnosis/: derived-metric formulas, rule conditions)
//     auto e = real_expression::parse("dram_throughput >= 0.6 and sm_throughput < 0.3");
//     auto fired = e->evaluate(values);   // 1.0 or 0.0, or why it has no value
//   doubles (0.6, 10e9, 1.5e-3), logic written `and`, `or`, `not` (reserved words), typed: + - *
//   / % and comparisons take numbers, logic takes truth values, and a mismatch is a parse error.
//   Every name must have a finite value before evaluation starts; all missing names are listed
//   (a rule over unmeasured metrics is "not evaluated", never fired). '/' or '%' by zero and a
//   non-finite result are errors. No functions.
//
// Both: comparisons do not chain ("a < b < c" is an error; write it with and / &&); nesting is
// limited to max_depth; the other language's logic spelling is an error naming the right one.
// Evaluation errors other than unknown names end with ` in "<text>"`.

#include "foundation/expected/expected.hpp"
#include "config/expression/error.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::expression {

/// Values of names; std::less<> so lookups take string_view.
template <class Number>
using named_values = std::map<std::string, Number, std::less<>>;
/// The general lookup: the value of a name, or nullopt when it has none.
template <class Number>
using name_lookup = std::function<std::optional<Number>(std::string_view name)>;

using integer_values = named_values<std::int64_t>;
using real_values = named_values<double>;

/// Whether an expression yields a number or a truth value (a comparison, logic).
enum class result_type : std::uint8_t { number, truth };
inline constexpr std::array all_result_types{result_type::number, result_type::truth};
std::string_view to_string(result_type type);
std::optional<result_type> result_type_from_string(std::string_view text);

/// One occurrence of a name in the text.
struct name_reference {
  std::string name;
  std::uint32_t column = 0; // 1-based

  bool operator==(const name_reference&) const = default;
};

/// Parentheses, unary operators and call arguments nested deeper than this are rejected (the
/// parser and the evaluator recurse).
inline constexpr std::uint32_t max_depth = 64;

namespace syntax {
struct node; // the tree (syntax.hpp)
}

template <class Number>
class basic_expression {
public:
  using values = named_values<Number>;
  using lookup = name_lookup<Number>;

  /// An empty expression; evaluating it is a syntax error. Use parse().
  basic_expression() = default;

  /// Parses `text`; syntax, types, functions and arities are checked here, names are not (they
  /// depend on the values), but references() lists them for checks up front.
  static expected<basic_expression, error> parse(std::string_view text);
  /// A constant, for fields given as plain numbers.
  static basic_expression constant(Number value);

  expected<Number, error> evaluate(const lookup& names) const;
  expected<Number, error> evaluate(const values& names) const;

  /// The text as given to parse().
  const std::string& text() const { return text_; }
  /// True for a default-constructed expression (nothing parsed).
  bool empty() const { return root_ == nullptr; }
  result_type type() const { return type_; }
  /// Every name occurrence, in text order (a name may appear more than once).
  const std::vector<name_reference>& references() const { return references_; }
  /// The distinct names, in order of first appearance (not function names).
  std::vector<std::string> names() const;

  /// Same text means same expression.
  bool operator==(const basic_expression& other) const { return text_ == other.text_; }

private:
  std::string text_;
  result_type type_ = result_type::number;
  std::vector<name_reference> references_;
  std::shared_ptr<const syntax::node> root_; // shared: expressions are copied, never changed
};

extern template class basic_expression<std::int64_t>;
extern template class basic_expression<double>;

using integer_expression = basic_expression<std::int64_t>;
using real_expression = basic_expression<double>;

} // namespace warpforge::expression
