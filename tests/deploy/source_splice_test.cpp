// What goes into the target file, and the names of the deploy's enums.

#include "deploy/deploy_steps.hpp"
#include "deploy/program_timing.hpp"
#include "deploy/source_splice.hpp"

#include <gtest/gtest.h>

namespace warpforge::deploy {
namespace {

TEST(source_splice, the_region_content_is_replaced_and_its_markers_and_surroundings_kept) {
  const std::string original = "a\n  // warpforge:begin k\nold\n  // warpforge:end k\nb\n";
  auto out = splice(original, "k", "new\n");
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "a\n  // warpforge:begin k\nnew\n  // warpforge:end k\nb\n");
  EXPECT_EQ(*splice(original, "", "whole\n"), "whole\n");
  auto missing = splice(original, "other", "x");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("// warpforge:begin other"), std::string::npos);
}

TEST(source_splice, the_champion_text_is_its_defines_then_its_region_or_its_whole_source) {
  champion c;
  c.defines = {{"TILE", 32}, {"PAD", 1}};
  c.source = "head\n// warpforge:begin k\nbody\n// warpforge:end k\ntail";
  const std::string defines = "#ifndef TILE\n#define TILE 32\n#endif\n#ifndef PAD\n#define PAD 1\n#endif\n";
  EXPECT_EQ(champion_text(c, "k"), defines + "body\n");
  EXPECT_EQ(champion_text(c, ""), defines + c.source + "\n");
  c.source = "no markers";
  EXPECT_EQ(champion_text(c, "k"), defines + "no markers\n");
}

TEST(program_timing, the_median_and_the_spread_of_the_runs) {
  const double samples[] = {2.0, 1.0, 5.0, 1.5};
  auto t = summarize_timing(samples, "kernel_ms");
  EXPECT_DOUBLE_EQ(t.median, 1.75);
  EXPECT_DOUBLE_EQ(t.spread, 4.0);
  EXPECT_EQ(t.unit, "kernel_ms");
  EXPECT_EQ(t.samples.size(), 4u);
}

TEST(program_timing, the_last_result_line_with_the_key_counts) {
  EXPECT_DOUBLE_EQ(*result_value("RESULT: kernel_ms=2\nnoise\nRESULT: other=1 kernel_ms=1.25\n", "kernel_ms"), 1.25);
  auto none = result_value("hello\n", "kernel_ms");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("printed no `RESULT: kernel_ms=<value>` line"), std::string::npos);
  EXPECT_NE(none.error().find("hello"), std::string::npos) << "it quotes the output";
}

TEST(deploy_steps, every_step_status_and_outcome_has_a_name_that_reads_back) {
  for (auto s : all_deploy_steps)
    EXPECT_EQ(deploy_step_from_string(to_string(s)), s);
  for (auto s : all_step_statuses)
    EXPECT_EQ(step_status_from_string(to_string(s)), s);
  for (auto o : all_deploy_outcomes)
    EXPECT_EQ(deploy_outcome_from_string(to_string(o)), o);
  EXPECT_FALSE(deploy_step_from_string("deploy"));
  EXPECT_EQ(to_string(deploy_outcome::rolled_back), "rolled_back");
}

} // namespace
} // namespace warpforge::deploy
