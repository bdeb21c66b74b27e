#pragma once
// Why an expression could not be parsed or has no value: one error type for both languages
// (expression.hpp). Parse-time kinds come first, then evaluation-time kinds.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::expression {

enum class error_kind : std::uint8_t {
  // --- parse time ---
  syntax,           // the text is not an expression; the column says where it stops making sense
  unknown_function, // a call to a function the language does not have
  wrong_arity,      // a call with the wrong number of arguments
  type_mismatch,    // typed language: a number where a truth value is needed, or the reverse
  too_deep,         // parentheses or unary operators nested deeper than max_depth
  // --- evaluation time (overflow also at parse time: an integer literal outside int64) ---
  unknown_name,     // a name without a value; `names` lists it (or all of them, see the language)
  division_by_zero, // '/', '%', ceil_div or round_up by zero
  overflow,         // a result or literal outside the number type (int64); never wraps
  domain,           // a function argument outside its domain (log2(0), pow(2, -1), pow2(63))
  not_finite,       // real numbers: a NaN or infinite value or result
};
inline constexpr std::array all_error_kinds{
  error_kind::syntax,           error_kind::unknown_function, error_kind::wrong_arity,
  error_kind::type_mismatch,    error_kind::too_deep,         error_kind::unknown_name,
  error_kind::division_by_zero, error_kind::overflow,         error_kind::domain,
  error_kind::not_finite};
std::string_view to_string(error_kind kind);
std::optional<error_kind> error_kind_from_string(std::string_view text);

struct error {
  error_kind kind = error_kind::syntax;
  std::string message;            // names the offending token, name, function or operator
  std::uint32_t column = 0;       // 1-based column in the expression's text
  std::vector<std::string> names; // unknown_name: the names without a value, in order

  bool operator==(const error&) const = default;
};

} // namespace warpforge::expression
