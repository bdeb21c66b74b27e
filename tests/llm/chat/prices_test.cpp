#include "llm/chat/prices.hpp"

#include <gtest/gtest.h>

namespace warpforge::llm {
namespace {

const price_table& table() {
  static const price_table built = [] {
    auto parsed = price_table::built_in();
    if (!parsed)
      throw std::runtime_error(parsed.error());
    return *parsed;
  }();
  return built;
}

TEST(price_table, the_built_in_table_parses_and_every_entry_names_its_source) {
  auto parsed = price_table::built_in();
  ASSERT_TRUE(parsed) << parsed.error();
  ASSERT_GT(parsed->entries().size(), 10u);
  for (const auto& entry : parsed->entries()) {
    EXPECT_TRUE(entry.source.starts_with("https://")) << entry.name;
    EXPECT_EQ(entry.checked.size(), 10u) << entry.name;
    EXPECT_GT(entry.output, entry.input) << entry.name;
    EXPECT_LE(entry.cache_read, entry.input) << entry.name;
  }
}

TEST(price_table, covers_the_families_a_campaign_names) {
  for (const char* model : {"claude-sonnet-4-5", "claude-sonnet-4-20250514", "claude-opus-4-1",
                            "claude-opus-4-5-20251101", "claude-haiku-4-5", "gpt-4o", "gpt-4.1",
                            "gpt-4.1-mini", "o3", "o4-mini", "gpt-5"})
    EXPECT_NE(table().find(model), nullptr) << model;
  EXPECT_EQ(table().find("qwen2.5-coder:32b"), nullptr);
}

TEST(price_table, prefers_an_exact_name_then_the_longest_family_prefix) {
  EXPECT_EQ(table().find("gpt-4o-mini-2024-07-18")->name, "gpt-4o-mini");
  EXPECT_EQ(table().find("gpt-4o-2024-08-06")->name, "gpt-4o");
  EXPECT_EQ(table().find("claude-opus-4-5-20251101")->name, "claude-opus-4-5");
  EXPECT_EQ(table().find("claude-opus-4-20250514")->name, "claude-opus-4");
  EXPECT_EQ(table().find("o3-mini")->name, "o3-mini");
  // A prefix must end where the name goes on with a separator: "o1" does not price "o10".
  EXPECT_EQ(table().find("o10"), nullptr);
}

TEST(price_table, computes_cost_from_each_kind_of_token) {
  auto parsed = price_table::parse(R"(
[[model]]
name = "m"
provider = "test"
input = 3.0
output = 15.0
cache_read = 0.30
cache_write = 3.75
source = "https://example.invalid/prices"
checked = "2026-11-25"
)", "test.toml");
  ASSERT_TRUE(parsed) << parsed.error();
  const token_usage usage{1'000'000, 200'000, 2'000'000, 400'000};
  // 3.00 + 0.2 * 15 + 2 * 0.30 + 0.4 * 3.75 = 3 + 3 + 0.6 + 1.5
  EXPECT_NEAR(*parsed->cost_usd("m", usage), 8.1, 1e-9);
  EXPECT_NEAR(*parsed->cost_usd("m-2026", token_usage{0, 1000, 0, 0}), 0.015, 1e-12);
  EXPECT_FALSE(parsed->cost_usd("other", usage));
}

TEST(price_table, a_bad_table_reports_every_problem_with_its_place) {
  auto parsed = price_table::parse(R"(
[[model]]
name = "m"
provider = "test"
input = -1.0
output = 15.0
cache_read = 0.30
cache_write = 3.75
source = "s"
checked = "2026-11-25"

[[model]]
name = "m"
provider = "test"
inptu = 1.0
)", "mine.toml");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().find("mine.toml:5"), std::string::npos) << parsed.error();
  EXPECT_NE(parsed.error().find("negative"), std::string::npos);
  EXPECT_NE(parsed.error().find("inptu"), std::string::npos);
  EXPECT_NE(parsed.error().find("model[1].input"), std::string::npos);
}

} // namespace
} // namespace warpforge::llm
