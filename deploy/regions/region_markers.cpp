#include "deploy/regions/region_markers.hpp"

#include <algorithm>
#include <optional>

namespace warpforge::deploy {
namespace {

constexpr std::string_view begin_prefix = "// warpforge:begin";
constexpr std::string_view end_prefix = "// warpforge:end";

struct marker {
  bool begin = false;
  std::string name; // "" = the marker has none
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trimmed(std::string_view line) {
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && blank(line.back())) line.remove_suffix(1);
  return line;
}

/// The marker on `line`, if it is one: the prefix, then blanks and one word (or nothing).
std::optional<marker> marker_of(std::string_view line) {
  line = trimmed(line);
  for (auto [prefix, begin] : {std::pair{begin_prefix, true}, std::pair{end_prefix, false}}) {
    if (!line.starts_with(prefix)) continue;
    std::string_view rest = line.substr(prefix.size());
    if (!rest.empty() && !blank(rest.front())) return std::nullopt; // "// warpforge:beginning"
    return marker{begin, std::string{trimmed(rest)}};
  }
  return std::nullopt;
}

std::string at(std::string_view origin, std::size_t line) {
  return std::string{origin} + ":" + std::to_string(line) + ": ";
}

} // namespace

expected<std::vector<marked_region>, std::string> read_regions(std::string_view text, std::string_view origin) {
  std::vector<marked_region> regions;
  std::optional<marked_region> open;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t next = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line_number;
    const auto found = marker_of(text.substr(start, next - start));
    if (found && found->name.empty())
      return unexpected{at(origin, line_number) + "a region marker without a region name (write `" +
                        std::string{found->begin ? begin_prefix : end_prefix} + " <name>`)"};
    if (found && found->begin) {
      if (open)
        return unexpected{at(origin, line_number) + "region '" + found->name + "' begins inside region '" +
                          open->name + "' (begun at line " + std::to_string(open->begin_line) +
                          "): regions do not nest; end one before the next begins"};
      auto same = std::find_if(regions.begin(), regions.end(), [&](const auto& r) { return r.name == found->name; });
      if (same != regions.end())
        return unexpected{at(origin, line_number) + "region '" + found->name + "' is marked twice (first at line " +
                          std::to_string(same->begin_line) + "): a deploy would not know which to replace"};
      open = marked_region{found->name, line_number, 0, next, 0};
    } else if (found) {
      if (!open || open->name != found->name)
        return unexpected{at(origin, line_number) + "`" + std::string{end_prefix} + " " + found->name +
                          "` without its begin" +
                          (open ? " (region '" + open->name + "' is open, begun at line " +
                                    std::to_string(open->begin_line) + ")"
                                : std::string{})};
      open->end_line = line_number;
      open->content_end = start;
      regions.push_back(std::move(*open));
      open.reset();
    }
    start = next;
  }
  if (open)
    return unexpected{at(origin, open->begin_line) + "region '" + open->name + "' has no `" +
                      std::string{end_prefix} + " " + open->name + "` after it"};
  return regions;
}

expected<marked_region, std::string> find_region(std::string_view text, std::string_view name, std::string_view origin) {
  auto regions = read_regions(text, origin);
  if (!regions)
    return unexpected{regions.error()};
  for (auto& region : *regions)
    if (region.name == name)
      return std::move(region);
  return unexpected{std::string{origin} + ": no region '" + std::string{name} + "' (mark it with a line `" +
                    std::string{begin_prefix} + " " + std::string{name} + "` and a later line `" +
                    std::string{end_prefix} + " " + std::string{name} + "`)"};
}

} // namespace warpforge::deploy
