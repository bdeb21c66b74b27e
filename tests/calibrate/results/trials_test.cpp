#include "calibrate/results/trials.hpp"

#include "gpu/stats/sample_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace warpforge::calibrate;

// Expected values computed by hand: values 30, 31, 32, 33, 34 -> mean 32, stddev sqrt(2.5).
constexpr double exact = 1e-12;

TEST(trials, no_trial_gives_all_zeros) {
  EXPECT_EQ(summarize({}), trial_stats{});
}

TEST(trials, statistics_match_hand_computed_values) {
  const std::vector<trial> trials{{34, 1980}, {30, 1980}, {32, 1975}, {31, 1980}, {33, 1970}};
  const auto s = summarize(trials);
  EXPECT_EQ(s.n, 5u);
  EXPECT_EQ(s.discarded, 0u);
  EXPECT_EQ(s.median, 32.0);
  EXPECT_EQ(s.mean, 32.0);
  EXPECT_NEAR(s.stddev, std::sqrt(2.5), exact);
  EXPECT_NEAR(s.cv, std::sqrt(2.5) / 32.0, exact);
  EXPECT_EQ(s.max_clock_mhz, 1980.0);
  // n = 5: no pair of order statistics reaches 95%; [min, max] covers 1 - 2 / 32.
  EXPECT_EQ(s.ci95_low, 30.0);
  EXPECT_EQ(s.ci95_high, 34.0);
  EXPECT_NEAR(s.ci_level, 1.0 - 2.0 / 32.0, exact);
}

TEST(trials, the_interval_is_the_medians_from_order_statistics) {
  std::vector<trial> trials;
  std::vector<double> sorted;
  for (int i = 0; i < 20; ++i) {
    trials.push_back({100.0 + i, 1800});
    sorted.push_back(100.0 + i);
  }
  const auto s = summarize(trials);
  const auto expected = warpforge::gpu::median_interval(sorted);
  EXPECT_EQ(s.ci95_low, expected.low);
  EXPECT_EQ(s.ci95_high, expected.high);
  EXPECT_GE(s.ci_level, 0.95);
  EXPECT_LT(s.ci95_low, s.median);
  EXPECT_GT(s.ci95_high, s.median);
}

TEST(trials, a_trial_below_the_throttle_fraction_of_the_highest_clock_is_discarded) {
  // 0.97 x 1980 = 1920.6 MHz: 1925 stays, 1900 and 1500 go, with their outlying values.
  const std::vector<trial> trials{{33, 1980}, {33, 1925}, {34, 1980}, {60, 1900}, {90, 1500}};
  const auto s = summarize(trials);
  EXPECT_EQ(s.n, 3u);
  EXPECT_EQ(s.discarded, 2u);
  EXPECT_EQ(s.median, 33.0);
  EXPECT_NEAR(s.mean, 100.0 / 3.0, exact);
}

TEST(trials, the_throttle_fraction_is_the_callers) {
  const std::vector<trial> trials{{33, 2000}, {35, 1700}};
  EXPECT_EQ(summarize(trials, 0.80).n, 2u); // 1700 >= 1600
  EXPECT_EQ(summarize(trials, 0.90).n, 1u); // 1700 < 1800
}

TEST(trials, a_trial_with_an_unknown_clock_is_kept) {
  const std::vector<trial> trials{{33, 0}, {34, 1980}, {35, 0}};
  const auto s = summarize(trials);
  EXPECT_EQ(s.n, 3u);
  EXPECT_EQ(s.discarded, 0u);
  EXPECT_EQ(s.median, 34.0);
}

TEST(trials, a_value_that_is_not_finite_is_counted_and_left_out) {
  const std::vector<trial> trials{{std::numeric_limits<double>::quiet_NaN(), 1980},
                                  {std::numeric_limits<double>::infinity(), 1980},
                                  {10, 1980},
                                  {12, 1980}};
  const auto s = summarize(trials);
  EXPECT_EQ(s.invalid, 2u);
  EXPECT_EQ(s.n, 2u);
  EXPECT_EQ(s.median, 11.0);
  EXPECT_TRUE(std::isfinite(s.cv));
}

TEST(trials, the_cv_of_negative_values_is_still_a_spread) {
  const std::vector<trial> trials{{-10, 0}, {-12, 0}, {-11, 0}};
  const auto s = summarize(trials);
  EXPECT_NEAR(s.cv, 1.0 / 11.0, exact);
}

TEST(trials, identical_trials_have_a_centre_but_no_spread_and_say_why) {
  const auto stats = summarize({{32.0031, 1980}, {32.0031, 1975}, {32.0031, 1990}});
  EXPECT_TRUE(all_identical(stats));
  EXPECT_TRUE(has_center(stats));
  EXPECT_FALSE(has_spread(stats));
  EXPECT_FALSE(has_interval(stats));
  EXPECT_EQ(missing_spread_reason(stats), "all 3 kept trials identical: no spread to measure");
  const auto differing = summarize({{32.0031, 1980}, {32.0047, 1980}});
  EXPECT_FALSE(all_identical(differing));
  EXPECT_TRUE(has_spread(differing));
  EXPECT_TRUE(has_interval(differing));
  EXPECT_TRUE(has_interval(summarize({{4, 1980}}))) << "one trial: its interval is the trial";
}
