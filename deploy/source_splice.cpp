#include "deploy/source_splice.hpp"

#include "deploy/regions/region_markers.hpp"

namespace warpforge::deploy {

std::optional<std::string> region_content(std::string_view text, std::string_view region) {
  auto found = find_region(text, region, "the champion");
  if (!found)
    return std::nullopt;
  return std::string{text.substr(found->content_begin, found->content_end - found->content_begin)};
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
                                          std::string_view inner, std::string_view origin) {
  if (region.empty())
    return std::string{inner};
  auto span = find_region(original, region, origin);
  if (!span)
    return unexpected{span.error()};
  std::string out{original.substr(0, span->content_begin)};
  out += inner;
  out += original.substr(span->content_end);
  return out;
}

} // namespace warpforge::deploy
