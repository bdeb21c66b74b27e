#include "gpu/stats/warmup_rule.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace warpforge::gpu;

TEST(warmup_rule, every_decision_round_trips_through_its_name) {
  for (auto decision : all_warmup_decisions)
    EXPECT_EQ(warmup_decision_from_string(to_string(decision)), decision) << to_string(decision);
  EXPECT_FALSE(warmup_decision_from_string("warm"));
}

TEST(warmup_rule, a_clock_ramp_keeps_it_going_until_the_times_settle) {
  timing_policy policy; // windows of 5, 1%, at least 10 launches
  warmup_rule rule{policy};
  // 2.0 ms falling 10% per launch towards 1.0 ms, then flat.
  double t = 2.0e-3;
  std::size_t launches = 0;
  while (rule.decision() == warmup_decision::keep_going) {
    rule.add(t);
    ++launches;
    t = std::max(1.0e-3, t * 0.9);
  }
  EXPECT_EQ(rule.decision(), warmup_decision::settled);
  // The ramp reaches 1.0 ms after 7 launches; two windows of the plateau agree after 12 or so.
  EXPECT_GE(launches, 10u);
  EXPECT_LE(launches, 16u);
  EXPECT_DOUBLE_EQ(rule.recent_median_s(), 1.0e-3);
}

TEST(warmup_rule, steady_times_settle_after_the_minimum) {
  timing_policy policy;
  warmup_rule rule{policy};
  std::mt19937_64 random{3};
  std::normal_distribution<double> noise{0.0, 0.001};
  while (rule.decision() == warmup_decision::keep_going)
    rule.add(0.5e-3 * (1.0 + noise(random)));
  EXPECT_EQ(rule.decision(), warmup_decision::settled);
  EXPECT_EQ(rule.launches(), policy.warmup_min_launches);
  EXPECT_NEAR(rule.recent_median_s(), 0.5e-3, 0.005e-3);
}

TEST(warmup_rule, times_that_never_settle_stop_at_the_launch_cap_or_the_time_cap) {
  timing_policy policy;
  policy.warmup_max_launches = 50;
  warmup_rule by_launches{policy};
  double t = 1.0e-3;
  while (by_launches.decision() == warmup_decision::keep_going)
    by_launches.add(t *= 1.05); // 5% slower every launch: never settles
  EXPECT_EQ(by_launches.decision(), warmup_decision::launch_cap);
  EXPECT_EQ(by_launches.launches(), 50u);

  warmup_rule by_time{policy};
  by_time.add(1.0);
  by_time.set_elapsed(policy.warmup_max_time_s);
  EXPECT_EQ(by_time.decision(), warmup_decision::time_cap);
}
