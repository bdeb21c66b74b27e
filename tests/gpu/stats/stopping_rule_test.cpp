#include "gpu/stats/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <random>

using namespace warpforge::gpu;

namespace {

constexpr std::uint64_t stream_seed = 12345; // fixed: the scenarios are reproducible

// Feeds `next()` to a rule until it decides; returns the final decision.
stop_decision run(stopping_rule& rule, const std::function<double()>& next) {
  while (rule.decision() == stop_decision::keep_going)
    rule.add(next());
  return rule.decision();
}

std::function<double()> gaussian(double mean_s, double relative_stddev) {
  auto engine = std::make_shared<std::mt19937_64>(stream_seed);
  auto normal = std::make_shared<std::normal_distribution<double>>(mean_s, mean_s * relative_stddev);
  return [=] { return std::max(1e-9, (*normal)(*engine)); };
}

} // namespace

TEST(stopping_rule, every_decision_round_trips_through_its_name) {
  for (auto decision : all_stop_decisions)
    EXPECT_EQ(stop_decision_from_string(to_string(decision)), decision) << to_string(decision);
  EXPECT_FALSE(stop_decision_from_string("done"));
  EXPECT_FALSE(is_final(stop_decision::keep_going));
  EXPECT_TRUE(is_final(stop_decision::converged));
}

TEST(stopping_rule, defaults_follow_nvbench) {
  const timing_policy policy;
  EXPECT_EQ(policy.min_samples, 10u);
  EXPECT_EQ(policy.min_time_s, 0.5);
  EXPECT_EQ(policy.max_noise, 0.005);
  EXPECT_EQ(policy.max_time_s, 15.0);
  EXPECT_EQ(policy.noise_window, 512u);
}

TEST(stopping_rule, a_constant_stream_converges_as_soon_as_min_time_is_exceeded) {
  stopping_rule rule; // min_time 0.5 s, to be exceeded strictly (as nvbench)
  const double sample_s = 1.0 / 64.0; // exact in binary: 32 samples sum to exactly 0.5 s
  for (int i = 0; i < 32; ++i)
    rule.add(sample_s);
  EXPECT_EQ(rule.measured_s(), 0.5);
  EXPECT_EQ(rule.decision(), stop_decision::keep_going);
  rule.add(sample_s);
  EXPECT_EQ(rule.decision(), stop_decision::converged);
  EXPECT_EQ(rule.samples(), 33u);
  EXPECT_EQ(rule.noise(), 0.0);
}

TEST(stopping_rule, min_samples_holds_back_a_stream_with_no_noise) {
  timing_policy policy;
  policy.min_time_s = 0.0;
  stopping_rule rule{policy};
  for (int i = 0; i < 9; ++i)
    rule.add(1e-3);
  EXPECT_EQ(rule.decision(), stop_decision::keep_going); // minimum 10 samples
  rule.add(1e-3);
  EXPECT_EQ(rule.decision(), stop_decision::converged);
}

TEST(stopping_rule, low_noise_converges_as_soon_as_the_minima_are_met) {
  timing_policy policy;
  policy.min_time_s = 0.01; // 100 samples of 100 us
  stopping_rule rule{policy};
  EXPECT_EQ(run(rule, gaussian(100e-6, 0.001)), stop_decision::converged);
  EXPECT_GE(rule.samples(), 100u);
  EXPECT_LE(rule.samples(), 101u); // floating sums may need one more sample
  EXPECT_LT(rule.noise(), policy.max_noise);
}

TEST(stopping_rule, high_noise_runs_to_the_budget_and_says_not_converged) {
  timing_policy policy;
  policy.max_time_s = 1.0;
  policy.stop_on_noise_plateau = false;
  stopping_rule rule{policy};
  EXPECT_EQ(run(rule, gaussian(1e-3, 0.2)), stop_decision::budget_exhausted);
  EXPECT_GE(rule.measured_s(), 1.0);
  EXPECT_GT(rule.noise(), 0.1);
}

TEST(stopping_rule, stable_high_noise_stops_on_the_plateau_before_the_budget_not_converged) {
  timing_policy policy;
  policy.max_time_s = 100.0;
  stopping_rule rule{policy};
  EXPECT_EQ(run(rule, gaussian(1e-3, 0.2)), stop_decision::noise_plateau);
  EXPECT_LT(rule.measured_s(), policy.max_time_s);
  EXPECT_EQ(rule.samples() % policy.noise_check_every, 0u);
  EXPECT_GT(rule.samples(), policy.noise_min_history);
}

TEST(stopping_rule, a_drifting_stream_never_converges) {
  timing_policy policy;
  policy.max_time_s = 2.0;
  stopping_rule rule{policy};
  int i = 0;
  const auto decision = run(rule, [&] { return 1e-3 * (1.0 + 0.001 * i++); });
  EXPECT_NE(decision, stop_decision::converged);
  EXPECT_GT(rule.noise(), policy.max_noise);
}

TEST(stopping_rule, the_budget_wins_over_unmet_minima) {
  timing_policy policy;
  policy.min_samples = 1000;
  policy.max_time_s = 0.1;
  stopping_rule rule{policy};
  EXPECT_EQ(run(rule, [] { return 0.01; }), stop_decision::budget_exhausted);
  EXPECT_LE(rule.samples(), 11u);
}

TEST(stopping_rule, wall_time_counts_against_the_budget) {
  stopping_rule rule;
  rule.add(1e-3);
  rule.set_wall_elapsed(16.0); // e.g. L2 flushes and syncs between launches
  EXPECT_EQ(rule.elapsed_s(), 16.0);
  EXPECT_EQ(rule.decision(), stop_decision::budget_exhausted);
}

TEST(stopping_rule, max_samples_caps_a_noisy_stream) {
  timing_policy policy;
  policy.max_samples = 20;
  stopping_rule rule{policy};
  EXPECT_EQ(run(rule, gaussian(1e-3, 0.2)), stop_decision::max_samples);
  EXPECT_EQ(rule.samples(), 20u);
}

TEST(stopping_rule, non_finite_samples_count_but_stay_out_of_the_noise) {
  timing_policy policy;
  policy.min_time_s = 0.0;
  stopping_rule rule{policy};
  for (int i = 0; i < 9; ++i)
    rule.add(1e-3);
  rule.add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(rule.samples(), 10u);
  EXPECT_EQ(rule.noise(), 0.0);
  EXPECT_EQ(rule.decision(), stop_decision::converged);
}
