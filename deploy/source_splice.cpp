#include "deploy/source_splice.hpp"

#include "config/deploy_target.hpp"

namespace warpforge::deploy {

namespace {

struct region_span {
  std::size_t content_begin = 0; // first byte after the begin marker's line
  std::size_t content_end = 0;   // first byte of the end marker's line
};

std::optional<region_span> find_region(std::string_view text, std::string_view region) {
  const auto begin = text.find(region_begin_marker(region));
  if (begin == std::string_view::npos)
    return std::nullopt;
  const auto line_end = text.find('\n', begin);
  if (line_end == std::string_view::npos)
    return std::nullopt;
  const auto end = text.find(region_end_marker(region), line_end);
  if (end == std::string_view::npos)
    return std::nullopt;
  const auto end_line = text.rfind('\n', end); // the end marker may be indented
  return region_span{line_end + 1, end_line == std::string_view::npos || end_line < line_end
                                     ? end
                                     : end_line + 1};
}

} // namespace

std::optional<std::string> region_content(std::string_view text, std::string_view region) {
  auto span = find_region(text, region);
  if (!span)
    return std::nullopt;
  return std::string{text.substr(span->content_begin, span->content_end - span->content_begin)};
}

std::string champion_text(const champion& chosen, std::string_view region) {
  std::string out;
  // Guarded, because the target file may also be the problem's kernel source: a later campaign
  // on the deployed file passes -DNAME=v and must still vary it, while the project's own build
  // (no -D) gets the champion's values.
  for (const auto& [name, value] : chosen.defines)
    out += "#ifndef " + name + "\n#define " + name + " " + std::to_string(value) + "\n#endif\n";
  std::string body = chosen.source;
  if (!region.empty())
    if (auto inner = region_content(chosen.source, region))
      body = std::move(*inner);
  if (!body.empty() && body.back() != '\n')
    body += '\n';
  return out + body;
}

expected<std::string, std::string> splice(std::string_view original, std::string_view region,
                                          std::string_view inner) {
  if (region.empty())
    return std::string{inner};
  auto span = find_region(original, region);
  if (!span)
    return unexpected{"the target has no region '" + std::string{region} + "' (`" +
                      region_begin_marker(region) + "` ... `" + region_end_marker(region) + "`)"};
  std::string out{original.substr(0, span->content_begin)};
  out += inner;
  out += original.substr(span->content_end);
  return out;
}

} // namespace warpforge::deploy
