// kind = "calibrate" in the campaign spec (config/campaign_spec.hpp): its [calibrate] table, no
// jobs, and optimize campaigns unchanged.
#include "config/campaign_spec.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace warpforge::config {
namespace {

bool mentions(const toml_reader::placed_errors& errors, std::string_view key, std::string_view text) {
  return std::any_of(errors.begin(), errors.end(), [&](const auto& e) {
    const auto line = toml_reader::to_string(e);
    return line.find(key) != std::string::npos && line.find(text) != std::string::npos;
  });
}

std::string all(const toml_reader::placed_errors& errors) {
  std::string text;
  for (const auto& e : errors)
    text += toml_reader::to_string(e) + "\n";
  return text;
}

TEST(calibrate_campaign_spec, reads_every_calibrate_option_with_no_jobs) {
  auto spec = parse_campaign(R"(name = "h100-cal"
kind = "calibrate"
gpus = [0, 1]
[calibrate]
max_priority = 2
only = ["fp32_fma_latency", "smem_latency"]
reset = ["smem_latency"]
trials = 7
trial_watchdog_s = 12.5
arch = "sm_90a"
catalog = "my-catalog.toml"
notes = "notes.json"
)", "/campaigns/cal.toml");
  ASSERT_TRUE(spec) << all(spec.error());
  EXPECT_EQ(spec->kind, campaign_kind::calibrate);
  EXPECT_TRUE(spec->jobs.empty());
  const auto& c = spec->calibrate;
  EXPECT_EQ(c.max_priority, 2u);
  EXPECT_EQ(c.only, (std::vector<std::string>{"fp32_fma_latency", "smem_latency"}));
  EXPECT_EQ(c.reset, std::vector<std::string>{"smem_latency"});
  EXPECT_EQ(c.trials, 7u);
  EXPECT_DOUBLE_EQ(c.trial_watchdog_s, 12.5);
  EXPECT_EQ(c.arch, "sm_90a");
  EXPECT_EQ(c.catalog, std::filesystem::path{"/campaigns/my-catalog.toml"}) << "relative to the campaign file";
  EXPECT_EQ(c.notes, std::filesystem::path{"/campaigns/notes.json"});
  EXPECT_EQ(spec->gpus.ordinals, (std::vector<std::uint32_t>{0, 1}));
}

TEST(calibrate_campaign_spec, defaults_without_a_calibrate_table) {
  auto spec = parse_campaign("name = \"cal\"\nkind = \"calibrate\"\n", "/c/cal.toml");
  ASSERT_TRUE(spec) << all(spec.error());
  EXPECT_EQ(spec->calibrate, calibrate_spec{});
  EXPECT_EQ(spec->calibrate.max_priority, 3u);
}

TEST(calibrate_campaign_spec, refuses_jobs_bad_names_and_out_of_range_values_each_at_its_key) {
  auto spec = parse_campaign(R"(name = "cal"
kind = "calibrate"
[[jobs]]
problem = "p.toml"
[calibrate]
max_priority = 5
trials = 0
trial_watchdog_s = -1
only = ["FP32 latency"]
colour = "red"
)", "/c/cal.toml");
  ASSERT_FALSE(spec);
  const auto& errors = spec.error();
  EXPECT_TRUE(mentions(errors, "jobs", "no jobs")) << all(errors);
  EXPECT_TRUE(mentions(errors, "calibrate.max_priority", "[1, 4]")) << all(errors);
  EXPECT_TRUE(mentions(errors, "calibrate.trials", "[1, 1000]")) << all(errors);
  EXPECT_TRUE(mentions(errors, "calibrate.trial_watchdog_s", "seconds")) << all(errors);
  EXPECT_TRUE(mentions(errors, "calibrate.only[0]", "not a parameter name")) << all(errors);
  EXPECT_TRUE(mentions(errors, "colour", "")) << all(errors);
}

TEST(calibrate_campaign_spec, an_optimize_campaign_may_not_carry_a_calibrate_table_and_still_needs_jobs) {
  auto spec = parse_campaign("name = \"opt\"\n[calibrate]\ntrials = 3\n", "/c/opt.toml");
  ASSERT_FALSE(spec);
  EXPECT_TRUE(mentions(spec.error(), "calibrate", "belongs to a calibrate campaign")) << all(spec.error());
  EXPECT_TRUE(mentions(spec.error(), "jobs", "")) << all(spec.error());
}

TEST(calibrate_campaign_spec, an_unknown_kind_is_refused) {
  auto spec = parse_campaign("name = \"x\"\nkind = \"benchmark\"\n[[jobs]]\nproblem = \"p.toml\"\n", "/c/x.toml");
  ASSERT_FALSE(spec);
  EXPECT_TRUE(mentions(spec.error(), "kind", "benchmark")) << all(spec.error());
}

TEST(campaign_kind, every_value_reads_back_from_its_name) {
  for (auto kind : all_campaign_kinds)
    EXPECT_EQ(campaign_kind_from_string(to_string(kind)), kind);
  EXPECT_FALSE(campaign_kind_from_string("nope"));
}

} // namespace
} // namespace warpforge::config
