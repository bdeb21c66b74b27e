#include "calibrate/results/parameter_result.hpp"

#include <cctype>

namespace warpforge::calibrate {

bool verdict_passed(std::string_view verdict_text) {
  auto starts_with = [&](std::string_view prefix) {
    if (verdict_text.size() < prefix.size())
      return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(verdict_text[i])) != prefix[i])
        return false;
    return true;
  };
  return starts_with("pass") || starts_with("ok");
}

} // namespace warpforge::calibrate
