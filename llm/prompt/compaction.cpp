#include "llm/prompt/compaction.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace warpforge::embedded {
extern const std::string_view llm_prompt_compaction_md;
} // namespace warpforge::embedded

namespace warpforge::llm {

namespace {

constexpr std::array<std::string_view, 3> section_names{"Resolved", "Pending", "Avoid"};

std::string_view trimmed(std::string_view text) {
  const auto blank = " \t\r\n";
  const auto first = text.find_first_not_of(blank);
  if (first == std::string_view::npos)
    return {};
  return text.substr(first, text.find_last_not_of(blank) - first + 1);
}

/// The body of a section: its lines without surrounding blank lines, ending in a newline.
std::string body_of(std::string_view text) {
  const auto body = trimmed(text);
  return body.empty() ? std::string{} : std::string{body} + "\n";
}

} // namespace

bool needs_compaction(const std::string& rendered_memory, std::size_t threshold_chars) {
  return rendered_memory.size() > threshold_chars;
}

prompt build_compaction_prompt(const std::string& raw_memory) {
  prompt p;
  p.stable.emplace_back(embedded::llm_prompt_compaction_md);
  p.changing = "## Raw memory\n" + raw_memory + (raw_memory.ends_with('\n') ? "" : "\n");
  return p;
}

expected<compacted_memory, std::string> parse_compaction(std::string_view reply) {
  std::array<std::optional<std::string>, 3> bodies;
  int current = -1;       // the section being read; -1: before the first heading
  std::size_t body_start = 0;
  const auto close = [&](std::size_t end) {
    if (current >= 0)
      bodies[current] = body_of(reply.substr(body_start, end - body_start));
  };
  std::size_t at = 0;
  while (at < reply.size()) {
    const auto end = std::min(reply.find('\n', at), reply.size());
    const auto line = trimmed(reply.substr(at, end - at));
    if (line.starts_with("## ")) {
      auto name = trimmed(line.substr(3));
      if (name.ends_with(':'))
        name.remove_suffix(1); // "## Avoid:" is the same heading
      const auto found = std::find(section_names.begin(), section_names.end(), name);
      if (found == section_names.end())
        return unexpected{"unexpected section \"" + std::string{line} + "\"; only ## Resolved, ## Pending and ## Avoid"};
      close(at);
      current = static_cast<int>(found - section_names.begin());
      if (bodies[current])
        return unexpected{"section ## " + std::string{name} + " appears twice"};
      bodies[current] = std::string{};
      body_start = end;
    }
    at = end + 1;
  }
  close(reply.size());
  for (std::size_t i = 0; i < section_names.size(); ++i)
    if (!bodies[i])
      return unexpected{"missing section ## " + std::string{section_names[i]}};
  return compacted_memory{*bodies[0], *bodies[1], *bodies[2]};
}

std::string render(const compacted_memory& memory) {
  const auto section = [](std::string_view name, const std::string& body) {
    return "## " + std::string{name} + "\n" + (body.empty() ? std::string{"- none\n"} : body);
  };
  return section("Resolved", memory.resolved) + section("Pending", memory.pending) + section("Avoid", memory.avoid);
}

} // namespace warpforge::llm
