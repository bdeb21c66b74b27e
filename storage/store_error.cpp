#include "storage/store_error.hpp"

#include <array>
#include <utility>

namespace warpforge::storage {
namespace {

struct code_name {
  store_error_code code;
  std::string_view name;
};

constexpr std::array code_names{
    code_name{store_error_code::cannot_open, "cannot_open"},
    code_name{store_error_code::not_a_run_directory, "not_a_run_directory"},
    code_name{store_error_code::schema_too_new, "schema_too_new"},
    code_name{store_error_code::schema_too_old, "schema_too_old"},
    code_name{store_error_code::migration_failed, "migration_failed"},
    code_name{store_error_code::constraint, "constraint"},
    code_name{store_error_code::io, "io"},
    code_name{store_error_code::not_found, "not_found"},
    code_name{store_error_code::busy, "busy"},
    code_name{store_error_code::read_only, "read_only"},
    code_name{store_error_code::corrupt, "corrupt"},
    code_name{store_error_code::invalid_argument, "invalid_argument"},
    code_name{store_error_code::sql, "sql"},
};

} // namespace

std::string_view to_string(store_error_code code) {
  for (const auto& entry : code_names)
    if (entry.code == code)
      return entry.name;
  return "unknown";
}

template <>
std::optional<store_error_code> from_string<store_error_code>(std::string_view text) {
  for (const auto& entry : code_names)
    if (entry.name == text)
      return entry.code;
  return std::nullopt;
}

std::string to_string(const store_error& error) {
  std::string text{to_string(error.code)};
  text += ": ";
  text += error.message;
  return text;
}

store_error with_context(store_error error, std::string_view context) {
  std::string message{context};
  message += ": ";
  message += error.message;
  error.message = std::move(message);
  return error;
}

} // namespace warpforge::storage
