#pragma once
// The integer expression language of specs: buffer counts, launch geometry, shared memory sizes,
// scalar values and tunable constraints. Parsed once into a tree, evaluated many times (every
// point the tuner visits) against a variable lookup. No floating point anywhere.
//
//   auto e = expression::parse("ceil_div(N, BLOCK) * 2");
//   auto v = e->evaluate(variable_map{{"N", 1000}, {"BLOCK", 256}});   // 8
//
// Grammar, lowest precedence first (all binary operators are left-associative):
//   or      := and ('||' and)*
//   and     := equal ('&&' equal)*
//   equal   := compare (('==' | '!=') compare)*
//   compare := sum (('<' | '<=' | '>' | '>=') sum)*
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/' | '%') unary)*
//   unary   := ('-' | '!' | '+') unary | primary
//   primary := integer | name | name '(' args ')' | '(' or ')'
// Integers are decimal and may contain '_' separators (1_048_576). Names are C identifiers.
// Semantics: 64-bit signed integers; '/' truncates toward zero and '%' takes the sign of the
// dividend (as in C); comparisons and logic yield 1 (true) or 0 (false); '&&' and '||'
// short-circuit, so "B != 0 && N / B > 2" is safe. Overflow is an error, never wrap-around.
// Functions: ceil_div(a, b) (exact ceiling of a/b), round_up(a, b) (ceil_div(a, b) * b),
// min(a, b), max(a, b), pow(a, b) (b >= 0), pow2(a) (2^a, 0 <= a <= 62), log2(a) (floor, a >= 1).

#include "expected/expected.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::config {

enum class expression_error_kind : std::uint8_t {
  syntax,           // the text is not an expression; the column says where it stops making sense
  unknown_name,     // a name that the lookup does not know
  unknown_function, // a call to a function that does not exist
  wrong_arity,      // a call with the wrong number of arguments
  division_by_zero, // '/', '%', ceil_div or round_up by zero
  overflow,         // a result (or literal) outside int64
  domain,           // a function argument outside its domain (log2(0), pow(2, -1), pow2(63))
};

std::string_view to_string(expression_error_kind kind);
std::optional<expression_error_kind> expression_error_kind_from_string(std::string_view text);

inline constexpr expression_error_kind all_expression_error_kinds[] = {
  expression_error_kind::syntax,           expression_error_kind::unknown_name,
  expression_error_kind::unknown_function, expression_error_kind::wrong_arity,
  expression_error_kind::division_by_zero, expression_error_kind::overflow,
  expression_error_kind::domain,
};

struct expression_error {
  expression_error_kind kind = expression_error_kind::syntax;
  std::string message;      // names the offending name, function or operator
  std::uint32_t column = 0; // 1-based column in the expression text

  bool operator==(const expression_error&) const = default;
};

/// Values of names for evaluation; std::less<> so lookups take string_view.
using variable_map = std::map<std::string, std::int64_t, std::less<>>;
/// The general lookup: the value of a name, or nullopt when unknown.
using variable_lookup = std::function<std::optional<std::int64_t>(std::string_view name)>;

/// Parentheses and unary operators nested deeper than this are rejected (stack safety).
inline constexpr std::uint32_t max_expression_depth = 64;

class expression {
public:
  /// An empty expression; evaluating it is a syntax error. Use parse().
  expression() = default;

  /// Parses `text`. Unknown functions and wrong arities are found here; unknown names are not
  /// (they depend on the lookup), but names() lists them for up-front checks.
  static expected<expression, expression_error> parse(std::string_view text);

  /// A constant, for fields given as TOML integers.
  static expression constant(std::int64_t value);

  expected<std::int64_t, expression_error> evaluate(const variable_lookup& lookup) const;
  expected<std::int64_t, expression_error> evaluate(const variable_map& variables) const;

  /// The text as given to parse().
  const std::string& text() const { return text_; }

  /// True for a default-constructed expression (nothing parsed).
  bool empty() const { return root_ == nullptr; }

  /// The distinct variable names referenced, in order of first appearance (not function names).
  std::vector<std::string> names() const;

  /// Same text means same expression.
  bool operator==(const expression& other) const { return text_ == other.text_; }

  struct node; // the tree, defined in expression.cpp

private:
  std::string text_;
  std::shared_ptr<const node> root_; // shared: expressions are copied with the specs, never changed
};

} // namespace warpforge::config
