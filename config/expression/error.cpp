#include "config/expression/error.hpp"

namespace warpforge::expression {

std::string_view to_string(error_kind kind) {
  switch (kind) {
  case error_kind::syntax: return "syntax";
  case error_kind::unknown_function: return "unknown_function";
  case error_kind::wrong_arity: return "wrong_arity";
  case error_kind::type_mismatch: return "type_mismatch";
  case error_kind::too_deep: return "too_deep";
  case error_kind::unknown_name: return "unknown_name";
  case error_kind::division_by_zero: return "division_by_zero";
  case error_kind::overflow: return "overflow";
  case error_kind::domain: return "domain";
  case error_kind::not_finite: return "not_finite";
  }
  return "?";
}

std::optional<error_kind> error_kind_from_string(std::string_view text) {
  for (const auto kind : all_error_kinds)
    if (to_string(kind) == text)
      return kind;
  return std::nullopt;
}

} // namespace warpforge::expression
