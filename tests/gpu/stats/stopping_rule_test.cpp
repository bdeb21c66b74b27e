#include "gpu/stats/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace warpforge::gpu;

namespace {

// A kernel's summary after `rounds` rounds of `per_round` samples spread by `relative` around 1 ms.
round_summary kernel(std::size_t rounds, std::size_t per_round, double relative) {
  std::vector<std::vector<double>> samples;
  for (std::size_t r = 0; r < rounds; ++r) {
    std::vector<double> round;
    for (std::size_t i = 0; i < per_round; ++i)
      round.push_back(1e-3 * (1.0 + relative * (static_cast<double>((r * per_round + i) % 5) - 2.0)));
    samples.push_back(round);
  }
  return summarize_rounds(samples);
}

} // namespace

TEST(stopping_rule, every_decision_round_trips_through_its_name) {
  for (auto decision : all_stop_decisions)
    EXPECT_EQ(stop_decision_from_string(to_string(decision)), decision) << to_string(decision);
  EXPECT_FALSE(stop_decision_from_string("done"));
  EXPECT_FALSE(is_final(stop_decision::keep_going));
  EXPECT_TRUE(is_final(stop_decision::converged));
}

TEST(stopping_rule, narrow_intervals_converge_once_the_minimum_rounds_are_run) {
  const timing_policy policy; // 5 rounds, 10 samples, 0.5%
  const stopping_rule rule{policy, 2};
  const std::vector<round_summary> four{kernel(4, 8, 0.0001), kernel(4, 8, 0.0001)};
  EXPECT_EQ(rule.decide(four, 4, 0.01), stop_decision::keep_going);
  const std::vector<round_summary> five{kernel(5, 8, 0.0001), kernel(5, 8, 0.0001)};
  EXPECT_LT(five[0].half_width, policy.ci_target);
  EXPECT_EQ(rule.decide(five, 5, 0.01), stop_decision::converged);
}

TEST(stopping_rule, one_wide_kernel_keeps_the_whole_race_going) {
  const timing_policy policy;
  const stopping_rule rule{policy, 2};
  const std::vector<round_summary> kernels{kernel(5, 8, 0.0001), kernel(5, 2, 0.05)};
  EXPECT_GT(kernels[1].half_width, policy.ci_target);
  EXPECT_EQ(rule.decide(kernels, 5, 0.01), stop_decision::keep_going);
  EXPECT_EQ(rule.kernel_decision(kernels[0], 5, stop_decision::budget_exhausted), stop_decision::converged);
  EXPECT_EQ(rule.kernel_decision(kernels[1], 5, stop_decision::budget_exhausted),
            stop_decision::budget_exhausted);
}

TEST(stopping_rule, too_few_samples_never_converge) {
  const timing_policy policy; // min_samples 10
  const stopping_rule rule{policy, 1};
  const std::vector<round_summary> one_per_round{kernel(5, 1, 0.0)}; // 5 samples, zero spread
  EXPECT_EQ(one_per_round[0].half_width, 0.0);
  EXPECT_EQ(rule.decide(one_per_round, 5, 0.0), stop_decision::keep_going);
}

TEST(stopping_rule, the_budget_scales_with_the_kernels_and_wins_over_unmet_minima) {
  timing_policy policy;
  policy.max_time_s = 2.0;
  const stopping_rule rule{policy, 3};
  EXPECT_DOUBLE_EQ(rule.budget_s(), 6.0);
  const std::vector<round_summary> wide{kernel(2, 2, 0.05)};
  EXPECT_EQ(rule.decide(wide, 2, 5.9), stop_decision::keep_going);
  EXPECT_EQ(rule.decide(wide, 2, 6.0), stop_decision::budget_exhausted);
  policy.max_samples = 4; // wide has 2 rounds of 2
  EXPECT_EQ((stopping_rule{policy, 3}.decide(wide, 2, 0.0)), stop_decision::max_samples);
}
