#include "calibrate/results/number_format.hpp"

#include <cmath>
#include <cstdio>

namespace warpforge::calibrate {

std::string format_value(double value) {
  char text[48];
  if (!std::isfinite(value))
    std::snprintf(text, sizeof text, "%g", value);
  else if (std::abs(value) >= 1000.0 || value == std::round(value))
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string format_percent(double ratio) {
  char text[48];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return text;
}

std::string format_signed_percent(double ratio) {
  char text[48];
  std::snprintf(text, sizeof text, "%+.1f%%", ratio * 100.0);
  return text;
}

} // namespace warpforge::calibrate
