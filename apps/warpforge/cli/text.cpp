#include "apps/warpforge/cli/text.hpp"

#include "foundation/vocabulary/number_text.hpp"

#include <filesystem>

#include <cstdio>

namespace warpforge::cli {

std::string format_time(double seconds) { return vocabulary::time_text(seconds); }

std::string first_line(const std::string& text, std::size_t max_chars) {
  auto line = text.substr(0, text.find('\n'));
  return line.size() > max_chars ? line.substr(0, max_chars) + "..." : line;
}

std::optional<std::string> not_a_source_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found)
    return path + ": no such file";
  if (status.type() == std::filesystem::file_type::directory)
    return path + ": a folder, not a kernel source";
  if (status.type() != std::filesystem::file_type::regular)
    return path + ": a device, pipe or socket, not a kernel source";
  return std::nullopt;
}

} // namespace warpforge::cli
