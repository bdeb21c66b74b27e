#include "tuning/point_text.hpp"

#include <charconv>

namespace warpforge::tuning {

std::string canonical_text(const config::tunable_point& point) {
  std::string text;
  for (const auto& [name, value] : point) {
    if (!text.empty())
      text += ',';
    text += name;
    text += '=';
    text += std::to_string(value);
  }
  return text;
}

std::optional<config::tunable_point> parse_point_text(std::string_view text) {
  config::tunable_point point;
  if (text.empty())
    return point;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view pair = text.substr(0, comma);
    const auto equals = pair.find('=');
    if (equals == std::string_view::npos || equals == 0)
      return std::nullopt;
    const std::string_view value_text = pair.substr(equals + 1);
    std::int64_t value = 0;
    const auto* end = value_text.data() + value_text.size();
    const auto parsed = std::from_chars(value_text.data(), end, value);
    if (parsed.ec != std::errc{} || parsed.ptr != end || value_text.empty())
      return std::nullopt;
    if (!point.emplace(std::string(pair.substr(0, equals)), value).second)
      return std::nullopt;
    if (comma == std::string_view::npos)
      return point;
    text.remove_prefix(comma + 1);
  }
}

} // namespace warpforge::tuning
