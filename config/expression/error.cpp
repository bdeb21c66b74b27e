#include "config/expression/error.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::expression {

constexpr vocabulary::enum_word<error_kind> error_kind_words[] = {
    {error_kind::syntax, "syntax"},
    {error_kind::unknown_function, "unknown_function"},
    {error_kind::wrong_arity, "wrong_arity"},
    {error_kind::type_mismatch, "type_mismatch"},
    {error_kind::too_deep, "too_deep"},
    {error_kind::unknown_name, "unknown_name"},
    {error_kind::division_by_zero, "division_by_zero"},
    {error_kind::overflow, "overflow"},
    {error_kind::domain, "domain"},
    {error_kind::not_finite, "not_finite"},
};
static_assert(vocabulary::covers(error_kind_words, all_error_kinds));

std::string_view to_string(error_kind kind) { return vocabulary::word_of(error_kind_words, kind); }

std::optional<error_kind> error_kind_from_string(std::string_view text) {
  return vocabulary::value_of(error_kind_words, text);
}

} // namespace warpforge::expression
