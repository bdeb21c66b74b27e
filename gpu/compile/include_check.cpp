#include "gpu/compile/include_check.hpp"

#include <cctype>

namespace warpforge::gpu {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  return text;
}

// Whether a relative path climbs above where it starts ("a/../../b" does, "a/../b" does not).
bool climbs_out(std::string_view path) {
  int depth = 0;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (part == "..")
      --depth;
    else if (!part.empty() && part != ".")
      ++depth;
    if (depth < 0)
      return true;
    if (slash == std::string_view::npos)
      break;
    path.remove_prefix(slash + 1);
  }
  return false;
}

} // namespace

std::optional<std::string> include_refusal(std::string_view source) {
  std::size_t line_number = 0;
  while (!source.empty()) {
    ++line_number;
    const auto end = source.find('\n');
    auto line = trimmed(source.substr(0, end));
    source.remove_prefix(end == std::string_view::npos ? source.size() : end + 1);
    if (line.empty() || line.front() != '#')
      continue;
    line = trimmed(line.substr(1));
    if (!line.starts_with("include"))
      continue;
    const auto target = trimmed(line.substr(7));
    const auto where = "line " + std::to_string(line_number) + ": #include " + std::string{target} + ": ";
    if (target.empty() || (target.front() != '"' && target.front() != '<'))
      return where + "an #include must name its file in quotes or angle brackets (a macro cannot be checked)";
    const char close = target.front() == '"' ? '"' : '>';
    const auto path = target.substr(1, target.find(close, 1) - 1);
    if (path.starts_with('/') || path.find('\\') != std::string_view::npos)
      return where + "only relative paths inside the problem's folder, or CUDA headers, may be included";
    if (climbs_out(path))
      return where + "the path climbs out of the problem's folder with \"..\"";
  }
  return std::nullopt;
}

} // namespace warpforge::gpu
