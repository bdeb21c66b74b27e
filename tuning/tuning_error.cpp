#include "tuning/tuning_error.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "foundation/vocabulary/error_text.hpp"

namespace warpforge::tuning {

constexpr vocabulary::enum_word<tuning_error_code> tuning_error_code_words[] = {
    {tuning_error_code::space_too_large, "space_too_large"},
    {tuning_error_code::cannot_read, "cannot_read"},
};
static_assert(vocabulary::covers(tuning_error_code_words, all_tuning_error_codes));

std::string_view to_string(tuning_error_code code) { return vocabulary::word_of(tuning_error_code_words, code); }

std::optional<tuning_error_code> tuning_error_code_from_string(std::string_view text) {
  return vocabulary::value_of(tuning_error_code_words, text);
}

std::string to_string(const tuning_error& error) {
  return vocabulary::error_text(to_string(error.code), {}, error.message);
}

} // namespace warpforge::tuning
