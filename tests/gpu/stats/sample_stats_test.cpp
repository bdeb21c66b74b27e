#include "gpu/stats/sample_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

using namespace warpforge::gpu;

// Expected values computed by hand and checked with python3 (statistics.stdev, math.comb).
constexpr double exact = 1e-12;

TEST(sample_stats, an_empty_set_gives_all_zeros) {
  EXPECT_EQ(summarize({}), sample_stats{});
}

TEST(sample_stats, one_sample_has_no_spread_and_claims_no_coverage) {
  const std::vector<double> samples{0.5};
  const auto s = summarize(samples);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.median_s, 0.5);
  EXPECT_EQ(s.mean_s, 0.5);
  EXPECT_EQ(s.stddev_s, 0.0);
  EXPECT_EQ(s.cv, 0.0);
  EXPECT_EQ(s.rse, 0.0);
  EXPECT_EQ(s.min_s, 0.5);
  EXPECT_EQ(s.max_s, 0.5);
  EXPECT_EQ(s.median_ci, (confidence_interval{0.5, 0.5, 0.0}));
  EXPECT_EQ(s.mean_ci, (confidence_interval{0.5, 0.5, 0.0}));
}

TEST(sample_stats, two_samples_use_t_with_one_degree_of_freedom) {
  const std::vector<double> samples{3.0, 1.0};
  const auto s = summarize(samples);
  EXPECT_EQ(s.median_s, 2.0);
  EXPECT_EQ(s.mean_s, 2.0);
  EXPECT_NEAR(s.stddev_s, std::sqrt(2.0), exact);
  EXPECT_NEAR(s.cv, std::sqrt(2.0) / 2.0, exact);
  EXPECT_NEAR(s.rse, 0.5, exact); // sqrt(2) / sqrt(2) / 2
  // median: [x(1), x(2)] covers 1 - 2 * 2^-2 = 50%
  EXPECT_EQ(s.median_ci, (confidence_interval{1.0, 3.0, 0.5}));
  // mean: 2 +- 12.706204736 * sqrt(2) / sqrt(2)
  EXPECT_NEAR(s.mean_ci.low, 2.0 - 12.706204736, exact);
  EXPECT_NEAR(s.mean_ci.high, 2.0 + 12.706204736, exact);
  EXPECT_EQ(s.mean_ci.level, 0.95);
}

TEST(sample_stats, five_samples_match_hand_computed_values) {
  const std::vector<double> samples{5.0, 1.0, 4.0, 2.0, 3.0};
  const auto s = summarize(samples);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.median_s, 3.0);
  EXPECT_EQ(s.mean_s, 3.0);
  EXPECT_NEAR(s.stddev_s, 1.5811388300841898, exact); // sqrt(10 / 4)
  EXPECT_NEAR(s.cv, 0.5270462766947299, exact);
  EXPECT_NEAR(s.rse, 0.23570226039551587, exact);
  EXPECT_EQ(s.min_s, 1.0);
  EXPECT_EQ(s.max_s, 5.0);
  // n = 5 cannot reach 95%: [min, max] with its true coverage 1 - 2/32
  EXPECT_EQ(s.median_ci, (confidence_interval{1.0, 5.0, 0.9375}));
  EXPECT_NEAR(s.mean_ci.low, 3.0 - 1.963243161337696, 1e-9); // t(4) = 2.776445105
  EXPECT_NEAR(s.mean_ci.high, 3.0 + 1.963243161337696, 1e-9);
}

TEST(sample_stats, an_even_set_takes_the_middle_pair_for_the_median) {
  const std::vector<double> samples{2, 4, 4, 4, 5, 5, 7, 9};
  const auto s = summarize(samples);
  EXPECT_EQ(s.median_s, 4.5);
  EXPECT_EQ(s.mean_s, 5.0);
  EXPECT_NEAR(s.stddev_s, 2.138089935299395, exact); // sqrt(32 / 7)
  EXPECT_NEAR(s.cv, 0.427617987059879, exact);
  EXPECT_NEAR(s.rse, 0.15118578920369088, exact);
  EXPECT_EQ(s.median_ci, (confidence_interval{2.0, 9.0, 0.9921875})); // 1 - 2/256
  EXPECT_NEAR(s.mean_ci.high - s.mean_s, 1.7874879185440362, 1e-9); // t(7) = 2.364624252
}

std::vector<double> one_to(std::size_t n) {
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), 1.0);
  return values;
}

TEST(sample_stats, the_median_interval_uses_exact_binomial_ranks) {
  // (n, j, coverage) from math.comb: largest j with P(B <= j-1) <= 2.5%
  struct known { std::size_t n; double low; double high; double level; };
  for (const known k : {known{6, 1, 6, 0.96875}, known{20, 6, 15, 0.9586105346679688},
                        known{100, 40, 61, 0.9647997997822952},
                        known{1000, 469, 532, 0.9537088026395019}}) {
    const auto values = one_to(k.n);
    const auto ci = median_interval(values);
    EXPECT_EQ(ci.low, k.low) << k.n;
    EXPECT_EQ(ci.high, k.high) << k.n;
    EXPECT_NEAR(ci.level, k.level, exact) << k.n;
  }
}

TEST(sample_stats, the_median_interval_uses_the_normal_approximation_above_the_exact_limit) {
  const auto values = one_to(2000); // j = floor(1000 - 1.96 * sqrt(2000) / 2) = 956
  const auto ci = median_interval(values);
  EXPECT_EQ(ci.low, 956.0);
  EXPECT_EQ(ci.high, 1045.0);
  EXPECT_EQ(ci.level, confidence_level);
}

TEST(sample_stats, student_t_matches_tables_and_the_expansion_beyond) {
  EXPECT_EQ(student_t_975(1), 12.706204736);
  EXPECT_EQ(student_t_975(30), 2.042272456);
  // reference quantiles by numerical integration of the t density (python3)
  EXPECT_NEAR(student_t_975(31), 2.03951344639641, 1e-7);
  EXPECT_NEAR(student_t_975(60), 2.000297822014212, 1e-8);
  EXPECT_NEAR(student_t_975(120), 1.9799304050824356, 1e-9);
  EXPECT_NEAR(student_t_975(1000), 1.962339080825776, 1e-9);
  EXPECT_TRUE(std::isinf(student_t_975(0)));
}

TEST(sample_stats, order_of_samples_does_not_matter) {
  const std::vector<double> forward{1e-6, 2e-6, 3e-6, 10e-6};
  const std::vector<double> backward{10e-6, 3e-6, 2e-6, 1e-6};
  EXPECT_EQ(summarize(forward), summarize(backward));
}
