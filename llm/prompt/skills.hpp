#pragma once
// The skills: one short playbook per diagnosis finding (llm/prompt/skills/<rule-id>.md, one per
// rule of diagnosis/data/rules.toml), after Kernelking's two-layer injection (SEEDS-FACTS 3.1):
// the prompt's stable part always carries the catalogue (each skill's first line), and the
// changing part carries the full text of the skills whose rules fired this round (top 5 by
// severity), so the model knows every direction exists but reads only the relevant ones.
//
//   auto skills = skill_library::built_in();            // compiled in: no data path
//   stable += skills->catalogue();
//   for (auto& id : skills->select(diagnosis.fired)) changing += *skills->full_text(id);

#include "foundation/expected/expected.hpp"
#include "llm/prompt/facts.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::llm {

struct skill {
  std::string rule_id; // the finding it answers: "poor_coalescing"
  std::string summary; // the text's first line, without a leading "# "
  std::string text;    // the whole playbook (markdown)
};

class skill_library {
public:
  /// The skills compiled into this build (llm/prompt/CMakeLists.txt lists them), in rule order.
  static expected<skill_library, std::string> built_in();
  /// A library from (rule id, text) pairs; an error names the first skill with an empty id, an
  /// empty first line, or an id given twice.
  static expected<skill_library, std::string> from_texts(
      const std::vector<std::pair<std::string, std::string>>& texts);

  /// One line per skill, "- <rule_id>: <summary>", in library order.
  std::string catalogue() const;
  const skill* find(std::string_view rule_id) const;
  std::optional<std::string_view> full_text(std::string_view rule_id) const;
  /// The rule ids of the fired findings that have a skill, most severe first (critical, warning,
  /// info, then anything else), fired order within a severity, each once, at most `top`.
  std::vector<std::string> select(const std::vector<rule_fact>& fired, std::size_t top = 5) const;

  const std::vector<skill>& skills() const { return skills_; }


private:
  std::vector<skill> skills_;
};

} // namespace warpforge::llm
