#include "cli/text.hpp"

#include <cstdio>

namespace warpforge::cli {

std::string format_time(double seconds) {
  char buffer[32];
  if (seconds < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.2f us", seconds * 1e6);
  else
    std::snprintf(buffer, sizeof buffer, "%.4f ms", seconds * 1e3);
  return buffer;
}

std::string first_line(const std::string& text, std::size_t max_chars) {
  auto line = text.substr(0, text.find('\n'));
  return line.size() > max_chars ? line.substr(0, max_chars) + "..." : line;
}

} // namespace warpforge::cli
