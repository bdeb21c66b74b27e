#include "config/spec_file.hpp"

#include <fstream>
#include <sstream>

namespace warpforge::config::detail {

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return std::nullopt;
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return std::move(text).str();
}

std::filesystem::path resolve_against(const std::filesystem::path& spec_file,
                                      const std::filesystem::path& path) {
  if (path.is_absolute())
    return path.lexically_normal();
  return (spec_file.parent_path() / path).lexically_normal();
}

} // namespace warpforge::config::detail
