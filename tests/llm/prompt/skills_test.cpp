#include "llm/prompt/skills.hpp"

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <filesystem>
#include <set>
#include <string>

using namespace warpforge::llm;

namespace {

std::vector<std::string> rule_ids_of_the_matrix() {
  auto table = toml::parse_file(std::string{WARPFORGE_SOURCE_DIR} + "/diagnosis/data/rules.toml");
  std::vector<std::string> ids;
  for (const auto& node : *table["rule"].as_array())
    ids.push_back(std::string{*node.as_table()->get("id")->value<std::string>()});
  return ids;
}

const skill_library& built_in() {
  static const auto library = skill_library::built_in();
  EXPECT_TRUE(library) << (library ? "" : library.error());
  return *library;
}

} // namespace

TEST(Skills, EveryRuleOfTheMatrixHasASkillAndEverySkillARule) {
  const auto ids = rule_ids_of_the_matrix();
  ASSERT_GE(ids.size(), 20u);
  for (const auto& id : ids)
    EXPECT_TRUE(built_in().full_text(id)) << "no skill for rule " << id;
  const std::set<std::string> rules(ids.begin(), ids.end());
  for (const auto& s : built_in().skills())
    EXPECT_TRUE(rules.contains(s.rule_id)) << "skill " << s.rule_id << " answers no rule";
  EXPECT_EQ(built_in().skills().size(), ids.size());
}

TEST(Skills, EverySkillFileInTheFolderIsCompiledIn) {
  const std::filesystem::path folder = std::string{WARPFORGE_SOURCE_DIR} + "/llm/prompt/skills";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".md")
      continue;
    ++files;
    EXPECT_TRUE(built_in().full_text(entry.path().stem().string())) << entry.path() << " is not in the CMake list";
  }
  EXPECT_EQ(files, built_in().skills().size());
}

TEST(Skills, EachSkillIsAShortPlaybookWithAOneLineSummary) {
  for (const auto& s : built_in().skills()) {
    const auto lines = std::count(s.text.begin(), s.text.end(), '\n');
    EXPECT_GE(lines, 12) << s.rule_id;
    EXPECT_LE(lines, 40) << s.rule_id;
    EXPECT_FALSE(s.summary.starts_with("#")) << s.rule_id;
    EXPECT_GT(s.summary.size(), 20u) << s.rule_id;
    EXPECT_NE(s.text.find("**What to try"), std::string::npos) << s.rule_id;
    EXPECT_NE(s.text.find("**Measure**"), std::string::npos) << s.rule_id;
    EXPECT_NE(s.text.find("**Pitfalls**"), std::string::npos) << s.rule_id;
    for (unsigned char c : s.text)
      ASSERT_LT(c, 0x80) << s.rule_id << " is not ASCII";
  }
}

TEST(Skills, TheCatalogueHasOneLinePerSkillWithItsSummary) {
  const auto catalogue = built_in().catalogue();
  EXPECT_EQ(static_cast<std::size_t>(std::count(catalogue.begin(), catalogue.end(), '\n')), built_in().skills().size());
  const auto& coalescing = *std::find_if(built_in().skills().begin(), built_in().skills().end(),
                                         [](const skill& s) { return s.rule_id == "poor_coalescing"; });
  EXPECT_NE(catalogue.find("- poor_coalescing: " + coalescing.summary + "\n"), std::string::npos);
}

TEST(Skills, SelectTakesTheFiveMostSevereFiredRulesInFiredOrder) {
  const std::vector<rule_fact> fired{
    {"low_l1_hit", "info", ""},          {"poor_coalescing", "warning", ""}, {"memory_bound", "critical", ""},
    {"bank_conflicts", "warning", ""},   {"no_such_rule", "critical", ""},   {"stall_barrier", "warning", ""},
    {"low_occupancy", "warning", ""},    {"stall_wait", "warning", ""},      {"poor_coalescing", "warning", ""},
  };
  EXPECT_EQ(built_in().select(fired),
            (std::vector<std::string>{"memory_bound", "poor_coalescing", "bank_conflicts", "stall_barrier",
                                      "low_occupancy"}));
  EXPECT_EQ(built_in().select(fired, 2), (std::vector<std::string>{"memory_bound", "poor_coalescing"}));
  EXPECT_EQ(built_in().select({{"low_l1_hit", "info", ""}, {"low_ipc", "info", ""}}),
            (std::vector<std::string>{"low_l1_hit", "low_ipc"}));
}

TEST(Skills, FromTextsRefusesAnEmptySummaryAndATwiceGivenId) {
  auto empty = skill_library::from_texts({{"spills", "\nbody"}});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("spills"), std::string::npos);
  auto twice = skill_library::from_texts({{"spills", "# a\n"}, {"spills", "# b\n"}});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().find("twice"), std::string::npos);
  auto fine = skill_library::from_texts({{"spills", "# Spills: local memory.\nmore\n"}});
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->catalogue(), "- spills: Spills: local memory.\n");
}
