#pragma once
// The small expression language of the rule matrix (`when`) and of derived metrics (`formula`):
// real numbers over metric keys. Parsed once, with types checked, then evaluated per metric set.
//
//   auto e = metric_expression::parse("dram_throughput >= 0.6 and dram_throughput > sm_throughput");
//   auto fired = e->evaluate(values);   // 1.0 (true) or 0.0 (false), or why it could not be evaluated
//
// Grammar, lowest precedence first:
//   or      := and ('or' and)*
//   and     := not ('and' not)*
//   not     := 'not' not | compare
//   compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?     comparisons do not chain
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := number | key | '(' or ')'
// Numbers are decimal with an optional fraction and exponent (0.6, 10e9, 1.5e-3). Keys are metric
// keys ([a-z_][a-z0-9_]*, as in metric_schema.toml); `and`, `or`, `not` are reserved.
//
// Types: + - * / and comparisons take numbers; and/or/not take truth values; comparisons yield
// truth values. A mismatch ("dram_throughput and 2", "(a < b) + 1") is a parse error, as is a
// chained comparison. A rule's `when` must be a truth value, a formula a number (the loaders check).
//
// Evaluation: every key the expression names must have a value, else the result is
// `missing_metrics` listing all the absent keys (the rule is "not evaluated", never fired); '/' by
// zero is `division_by_zero`; a non-finite input or result is `not_finite`. `and`/`or`
// short-circuit, so "requests > 0 and sectors / requests > 8" never divides by zero.

#include "expected/expected.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis {

/// Metric key -> value in the schema's unit. std::less<> so lookups take string_view.
using metric_values = std::map<std::string, double, std::less<>>;

enum class expression_error_kind : std::uint8_t {
  syntax,        // not an expression; the column says where it stops making sense
  type_mismatch, // a number where a truth value is needed, or the other way round
  too_deep,      // nesting deeper than max_metric_expression_depth
};
inline constexpr std::array all_expression_error_kinds{expression_error_kind::syntax,
                                                       expression_error_kind::type_mismatch,
                                                       expression_error_kind::too_deep};
std::string_view to_string(expression_error_kind kind);
std::optional<expression_error_kind> expression_error_kind_from_string(std::string_view text);

struct expression_error {
  expression_error_kind kind = expression_error_kind::syntax;
  std::string message;      // names the offending token or operator
  std::uint32_t column = 0; // 1-based column in the expression text

  bool operator==(const expression_error&) const = default;
};

/// Why an expression has no value for a metric set.
enum class evaluation_failure : std::uint8_t {
  missing_metrics,  // a key without a value (all such keys are listed)
  division_by_zero, // '/' by 0
  not_finite,       // a NaN or infinite input or result
};
inline constexpr std::array all_evaluation_failures{evaluation_failure::missing_metrics,
                                                    evaluation_failure::division_by_zero,
                                                    evaluation_failure::not_finite};
std::string_view to_string(evaluation_failure failure);
std::optional<evaluation_failure> evaluation_failure_from_string(std::string_view text);

struct evaluation_problem {
  evaluation_failure failure = evaluation_failure::missing_metrics;
  std::vector<std::string> missing; // missing_metrics: the absent keys, in order of appearance
  std::string message;              // for people: "missing l2_hit_rate", "division by zero in ..."

  bool operator==(const evaluation_problem&) const = default;
};

/// Whether an expression yields a number or a truth value.
enum class expression_type : std::uint8_t { number, truth };
std::string_view to_string(expression_type type);

/// Parentheses, 'not' and unary '-' nested deeper than this are rejected (stack safety).
inline constexpr std::uint32_t max_metric_expression_depth = 64;

class metric_expression {
public:
  /// One key as written: for "unknown metric" errors that point at the column.
  struct key_reference {
    std::string key;
    std::uint32_t column = 0; // 1-based
  };

  metric_expression() = default; // empty: evaluates to a missing_metrics problem; use parse()

  static expected<metric_expression, expression_error> parse(std::string_view text);

  /// The value: a number, or 1.0 / 0.0 for a truth value.
  expected<double, evaluation_problem> evaluate(const metric_values& values) const;

  const std::string& text() const { return text_; }
  expression_type type() const { return type_; }
  bool empty() const { return root_ == nullptr; }

  /// Every key occurrence, in text order (a key may appear more than once).
  const std::vector<key_reference>& references() const { return references_; }
  /// The distinct keys, in order of first appearance.
  std::vector<std::string> keys() const;

  struct node; // the tree, defined in metric_expression.cpp

private:
  std::string text_;
  expression_type type_ = expression_type::number;
  std::vector<key_reference> references_;
  std::shared_ptr<const node> root_; // shared: expressions are copied, never changed
};

} // namespace warpforge::diagnosis
