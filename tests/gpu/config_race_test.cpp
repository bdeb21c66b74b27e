// Combining a race run at several configurations of a problem into one result: weighted medians
// and intervals, the first failure naming its configuration, and a single configuration left
// exactly as it was.

#include "gpu/runner/config_race.hpp"

#include <gtest/gtest.h>

namespace warpforge::gpu {
namespace {

using vocabulary::branch_outcome;

kernel_result passed(double median_s, double low_s, double high_s, std::size_t count = 10) {
  kernel_result k;
  k.outcome = branch_outcome::passed;
  k.stats.count = count;
  k.stats.median_s = median_s;
  k.stats.mean_s = median_s;
  k.stats.min_s = low_s;
  k.stats.max_s = high_s;
  k.stats.median_ci = {low_s, high_s, 0.95};
  k.stats.mean_ci = {low_s, high_s, 0.95};
  k.rounds = 2;
  k.kernel_s = 0.5;
  return k;
}

kernel_result failed(branch_outcome outcome, std::string detail) {
  kernel_result k;
  k.outcome = outcome;
  k.detail = std::move(detail);
  return k;
}

race_result race_of(std::vector<kernel_result> kernels, double wall_s = 1.0) {
  race_result r;
  r.kernels = std::move(kernels);
  r.wall_s = wall_s;
  return r;
}

TEST(ConfigRace, APassedKernelsTimeIsTheWeightedSumOfItsMediansAndSoIsItsInterval) {
  const std::vector<config_race_part> parts{
    {"large", 0.75, {0, 1}, race_of({passed(4e-3, 3.9e-3, 4.2e-3), passed(2e-3, 1.9e-3, 2.1e-3)})},
    {"small", 0.25, {0, 1}, race_of({passed(1e-3, 0.9e-3, 1.1e-3), passed(3e-3, 2.8e-3, 3.3e-3)})},
  };
  const auto r = combine_config_races(2, parts);
  ASSERT_EQ(r.kernels.size(), 2u);
  const auto& a = r.kernels[0];
  EXPECT_EQ(a.outcome, branch_outcome::passed);
  EXPECT_DOUBLE_EQ(a.stats.median_s, 0.75 * 4e-3 + 0.25 * 1e-3);
  EXPECT_DOUBLE_EQ(a.stats.median_ci.low, 0.75 * 3.9e-3 + 0.25 * 0.9e-3);
  EXPECT_DOUBLE_EQ(a.stats.median_ci.high, 0.75 * 4.2e-3 + 0.25 * 1.1e-3);
  EXPECT_EQ(a.stats.count, 20u);
  EXPECT_EQ(a.rounds, 4u);
  EXPECT_DOUBLE_EQ(a.kernel_s, 1.0);
  ASSERT_EQ(a.config_medians.size(), 2u);
  EXPECT_EQ(a.config_medians[1], (config_median{"small", 0.25, 1e-3}));
  // The second kernel is slower at "small" but faster where the weight is: it wins overall.
  EXPECT_LT(r.kernels[1].stats.median_s, a.stats.median_s);
  EXPECT_DOUBLE_EQ(r.wall_s, 2.0);
}

TEST(ConfigRace, HowSamplingStoppedComesFromWhereMostOfTheKernelsTimeGoesNotTheLargestWeight) {
  // Weights count launches: 200 short launches against 6 long ones.
  auto many_short = passed(20e-6, 19e-6, 21e-6);
  many_short.decision = stop_decision::max_samples;
  auto few_long = passed(1e-3, 0.99e-3, 1.01e-3);
  few_long.decision = stop_decision::converged;
  const std::vector<config_race_part> parts{
    {"1000x1000", 200.0 / 206, {0}, race_of({many_short})},
    {"8192x8192", 6.0 / 206, {0}, race_of({few_long})},
  };
  EXPECT_EQ(combine_config_races(1, parts).kernels[0].decision, stop_decision::converged);
}

TEST(ConfigRace, AFailureAtOneConfigFailsTheKernelAndNamesTheConfig) {
  const std::vector<config_race_part> parts{
    {"large", 0.5, {0, 1}, race_of({passed(4e-3, 3.9e-3, 4.2e-3), passed(2e-3, 1.9e-3, 2.1e-3)})},
    {"odd", 0.5, {0, 1}, race_of({passed(1e-3, 0.9e-3, 1.1e-3),
                                  failed(branch_outcome::incorrect, "output y differs at element 7")})},
  };
  const auto r = combine_config_races(2, parts);
  EXPECT_EQ(r.kernels[0].outcome, branch_outcome::passed);
  EXPECT_EQ(r.kernels[1].outcome, branch_outcome::incorrect);
  EXPECT_EQ(r.kernels[1].detail, "at config 'odd': output y differs at element 7");
}

TEST(ConfigRace, AKernelThatFailedIsNotRacedAgainAndKeepsItsFirstFailure) {
  // Kernel 1 timed out at "large"; "small" raced kernel 0 alone.
  const std::vector<config_race_part> parts{
    {"large", 0.5, {0, 1}, race_of({passed(4e-3, 3.9e-3, 4.2e-3), failed(branch_outcome::timeout, "hung")})},
    {"small", 0.5, {0}, race_of({passed(1e-3, 0.9e-3, 1.1e-3)})},
  };
  const auto r = combine_config_races(2, parts);
  EXPECT_EQ(r.kernels[0].outcome, branch_outcome::passed);
  EXPECT_DOUBLE_EQ(r.kernels[0].stats.median_s, 2.5e-3);
  EXPECT_EQ(r.kernels[1].outcome, branch_outcome::timeout);
  EXPECT_EQ(r.kernels[1].detail, "at config 'large': hung");
}

TEST(ConfigRace, AKernelMissingFromAConfigIsNotRunNamingIt) {
  const std::vector<config_race_part> parts{
    {"large", 0.5, {0}, race_of({passed(4e-3, 3.9e-3, 4.2e-3)})},
    {"small", 0.5, {}, race_of({})},
  };
  const auto r = combine_config_races(1, parts);
  EXPECT_EQ(r.kernels[0].outcome, branch_outcome::not_run);
  EXPECT_EQ(r.kernels[0].detail, "not raced at config 'small'");
}

TEST(ConfigRace, ASingleConfigComesBackExactlyAsItWas) {
  auto only = race_of({passed(4e-3, 3.9e-3, 4.2e-3), failed(branch_outcome::runtime_error, "lost")});
  only.sm_clock_hz_after = 1.98e9;
  only.notes = {"a note"};
  const auto r = combine_config_races(2, {{"vector_add", 1.0, {0, 1}, only}});
  EXPECT_EQ(r, only); // no config named, no medians added
}

TEST(ConfigRace, AKernelTheRunnerLeftOutIsARuntimeErrorSayingSo) {
  const auto r = combine_config_races(2, {{"only", 1.0, {0, 1}, race_of({passed(1e-3, 1e-3, 1e-3)})}});
  EXPECT_EQ(r.kernels[0].outcome, branch_outcome::passed);
  EXPECT_EQ(r.kernels[1].outcome, branch_outcome::runtime_error);
  EXPECT_EQ(r.kernels[1].detail, "the runner answered 1 kernels for a race of 2");
}

TEST(ConfigRace, NoConfigAtAllLeavesEveryKernelNotRun) {
  const auto r = combine_config_races(2, {});
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].outcome, branch_outcome::not_run);
}

TEST(ConfigRace, WeightedStatsTakeTheLowestCoverageAndCombineSpreadAsIndependentTerms) {
  sample_stats a;
  a.median_s = 2.0;
  a.mean_s = 2.0;
  a.stddev_s = 0.3;
  a.median_ci = {1.9, 2.1, 0.95};
  sample_stats b = a;
  b.stddev_s = 0.4;
  b.median_ci.level = 0.9;
  const auto s = weighted_stats({{0.5, a}, {0.5, b}});
  EXPECT_DOUBLE_EQ(s.median_s, 2.0);
  EXPECT_DOUBLE_EQ(s.median_ci.level, 0.9);
  EXPECT_DOUBLE_EQ(s.stddev_s, std::sqrt(0.25 * 0.09 + 0.25 * 0.16));
  EXPECT_DOUBLE_EQ(s.cv, s.stddev_s / 2.0);
}

TEST(ConfigRace, ConfigMediansSurviveTheJsonBody) {
  race_result r = race_of({passed(4e-3, 3.9e-3, 4.2e-3)});
  r.kernels[0].config_medians = {{"large", 0.75, 4e-3}, {"small", 0.25, 1e-3}};
  auto decoded = decode_race_result(encode_body(r));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(decoded->kernels[0].config_medians, r.kernels[0].config_medians);
  // A runner's reply has none, and says nothing about them.
  EXPECT_EQ(encode_body(race_of({passed(1e-3, 1e-3, 1e-3)})).find("config_medians"), std::string::npos);
}

} // namespace
} // namespace warpforge::gpu
