#include "storage/store_error.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "foundation/vocabulary/error_text.hpp"

#include <utility>

namespace warpforge::storage {
namespace {

// Each code's word, once (foundation/vocabulary/enum_text.hpp makes both directions from it).
constexpr vocabulary::enum_word<store_error_code> code_words[] = {
    {store_error_code::cannot_open, "cannot_open"},
    {store_error_code::not_a_run_directory, "not_a_run_directory"},
    {store_error_code::schema_too_new, "schema_too_new"},
    {store_error_code::schema_too_old, "schema_too_old"},
    {store_error_code::migration_failed, "migration_failed"},
    {store_error_code::constraint, "constraint"},
    {store_error_code::io, "io"},
    {store_error_code::not_found, "not_found"},
    {store_error_code::busy, "busy"},
    {store_error_code::read_only, "read_only"},
    {store_error_code::corrupt, "corrupt"},
    {store_error_code::invalid_argument, "invalid_argument"},
    {store_error_code::sql, "sql"},
};

} // namespace

std::string_view to_string(store_error_code code) {
  return vocabulary::word_of(code_words, code);
}

template <>
std::optional<store_error_code> from_string<store_error_code>(std::string_view text) {
  return vocabulary::value_of(code_words, text);
}

std::string to_string(const store_error& error) {
  return vocabulary::error_text(to_string(error.code), {}, error.message);
}

store_error with_context(store_error error, std::string_view context) {
  std::string message{context};
  message += ": ";
  message += error.message;
  error.message = std::move(message);
  return error;
}

} // namespace warpforge::storage
