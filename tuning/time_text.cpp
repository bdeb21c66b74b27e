#include "tuning/time_text.hpp"

#include <cmath>
#include <cstdio>

namespace warpforge::tuning {

std::string format_seconds(double seconds) {
  char text[64];
  const double magnitude = std::fabs(seconds);
  if (magnitude >= 1.0)
    std::snprintf(text, sizeof text, "%.3f s", seconds);
  else if (magnitude >= 1e-4)
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  else
    std::snprintf(text, sizeof text, "%.1f us", seconds * 1e6);
  return text;
}

std::string format_percent(double ratio) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return text;
}

} // namespace warpforge::tuning
