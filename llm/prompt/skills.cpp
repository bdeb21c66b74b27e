#include "llm/prompt/skills.hpp"

#include "llm/prompt/sections.hpp"
#include "llm/prompt/skills_index.hpp"

#include <algorithm>
#include <set>

namespace warpforge::llm {

namespace {

/// The first line of `text`, without a markdown heading's "# " and surrounding blanks.
std::string summary_line(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.front() == '#' || line.front() == ' '))
    line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
    line.remove_suffix(1);
  return std::string{line};
}

} // namespace

expected<skill_library, std::string> skill_library::built_in() {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& s : embedded_skills())
    texts.emplace_back(std::string{s.rule_id}, std::string{s.text});
  auto library = from_texts(texts);
  if (!library)
    return unexpected{"built-in skills: " + library.error()};
  return library;
}

expected<skill_library, std::string> skill_library::from_texts(
    const std::vector<std::pair<std::string, std::string>>& texts) {
  skill_library library;
  std::set<std::string, std::less<>> seen;
  for (const auto& [id, text] : texts) {
    if (id.empty())
      return unexpected{std::string{"a skill has no rule id"}};
    if (!seen.insert(id).second)
      return unexpected{"skill " + id + " is given twice"};
    auto summary = summary_line(text);
    if (summary.empty())
      return unexpected{"skill " + id + ": the first line (its one-line summary) is empty"};
    library.skills_.push_back(skill{id, std::move(summary), text});
  }
  return library;
}

std::string skill_library::catalogue() const {
  std::string out;
  for (const auto& s : skills_)
    out += "- " + s.rule_id + ": " + s.summary + "\n";
  return out;
}

const skill* skill_library::find(std::string_view rule_id) const {
  for (const auto& s : skills_)
    if (s.rule_id == rule_id)
      return &s;
  return nullptr;
}

std::optional<std::string_view> skill_library::full_text(std::string_view rule_id) const {
  if (const auto* s = find(rule_id))
    return std::string_view{s->text};
  return std::nullopt;
}

std::vector<std::string> skill_library::select(const std::vector<rule_fact>& fired, std::size_t top) const {
  std::vector<std::string> chosen;
  for (const auto& f : by_severity(fired)) {
    if (chosen.size() == top)
      break;
    if (find(f.id) && std::find(chosen.begin(), chosen.end(), f.id) == chosen.end())
      chosen.push_back(f.id);
  }
  return chosen;
}

} // namespace warpforge::llm
