#include "config/spec_file.hpp"

#include <cctype>

namespace warpforge::config::detail {

std::filesystem::path resolve_against(const std::filesystem::path& spec_file,
                                      const std::filesystem::path& path) {
  if (path.is_absolute())
    return path.lexically_normal();
  return (spec_file.parent_path() / path).lexically_normal();
}

bool is_identifier(std::string_view text) {
  if (text.empty())
    return false;
  if (std::isalpha(static_cast<unsigned char>(text.front())) == 0 && text.front() != '_')
    return false;
  for (const char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_')
      return false;
  return true;
}

} // namespace warpforge::config::detail
