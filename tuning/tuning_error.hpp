#pragma once
// tuning_error: why a tuner call failed, as a value. The code says what the caller can do; the
// message names the thing (the problem, the file, the size).

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::tuning {

enum class tuning_error_code {
  space_too_large, ///< the product of the tunables' value counts exceeds max_space_size
  cannot_read,     ///< a file the tuner needs (a kernel source) could not be read
};

inline constexpr tuning_error_code all_tuning_error_codes[] = {tuning_error_code::space_too_large,
                                                              tuning_error_code::cannot_read};

std::string_view to_string(tuning_error_code code);
std::optional<tuning_error_code> tuning_error_code_from_string(std::string_view text);

struct tuning_error {
  tuning_error_code code = tuning_error_code::cannot_read;
  std::string message; ///< what failed, naming the problem or the path
};

/// "<code>: <message>", for logs.
std::string to_string(const tuning_error& error);

} // namespace warpforge::tuning
