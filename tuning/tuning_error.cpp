#include "tuning/tuning_error.hpp"

namespace warpforge::tuning {

std::string_view to_string(tuning_error_code code) {
  switch (code) {
  case tuning_error_code::space_too_large: return "space_too_large";
  case tuning_error_code::cannot_read: return "cannot_read";
  }
  return "unknown";
}

std::optional<tuning_error_code> tuning_error_code_from_string(std::string_view text) {
  for (auto code : all_tuning_error_codes)
    if (to_string(code) == text)
      return code;
  return std::nullopt;
}

std::string to_string(const tuning_error& error) {
  return std::string(to_string(error.code)) + ": " + error.message;
}

} // namespace warpforge::tuning
