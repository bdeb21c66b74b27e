#include "calibrate/results/knee.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace warpforge::calibrate;

namespace {

constexpr double KiB = 1024.0, MiB = 1024.0 * 1024.0;

// A pointer-chase sweep as an H100 draws it: ~33 cycles while the working set fits the L1
// (256 KiB), a few transition points, ~260 cycles while it fits the L2 (50 MiB), one point
// between, then DRAM at ~600 creeping up with TLB misses. Sizes step by 2^(1/4) from 4 KiB to
// 1 GiB; each latency carries +-3% multiplicative noise from a fixed seed.
std::vector<curve_point> h100_like_sweep(unsigned seed) {
  std::mt19937 rng{seed};
  std::uniform_real_distribution<double> noise{-0.03, 0.03};
  std::vector<curve_point> out;
  for (double x = 4 * KiB; x <= 1024 * MiB; x *= std::pow(2.0, 0.25)) {
    double y;
    if (x <= 256 * KiB + 1)
      y = 33;
    else if (x <= 400 * KiB)
      y = 33 + (x - 256 * KiB) / (144 * KiB) * 200; // partial L1 hits: between the levels
    else if (x <= 50 * MiB + 1)
      y = 262;
    else if (x <= 60 * MiB)
      y = 430; // one point where part of the set is still in the L2
    else
      y = 600 + 20 * std::log2(x / (60 * MiB));
    out.push_back({std::round(x), y * (1 + noise(rng))});
  }
  return out;
}

std::vector<curve_point> flat(double level, double spread, unsigned seed, int points = 40) {
  std::mt19937 rng{seed};
  std::uniform_real_distribution<double> noise{-spread, spread};
  std::vector<curve_point> out;
  for (int i = 0; i < points; ++i)
    out.push_back({std::ldexp(1.0, 10 + i / 2) * (i % 2 ? 1.5 : 1.0), level * (1 + noise(rng))});
  return out;
}

} // namespace

TEST(knee, finds_the_l1_and_l2_capacities_on_an_h100_like_sweep) {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    const auto knees = find_knees(h100_like_sweep(seed));
    ASSERT_EQ(knees.size(), 2u) << "seed " << seed;
    // The last working set on each level: 256 KiB for the L1, 2^(25.5) B (45.25 MiB, the last
    // grid point below 50 MiB) for the L2.
    EXPECT_EQ(knees[0].x, 256 * KiB);
    EXPECT_NEAR(knees[0].before, 33, 33 * 0.03);
    EXPECT_NEAR(knees[0].after, 262, 262 * 0.03);
    EXPECT_NEAR(knees[1].x, std::round(std::pow(2.0, 25.5)), 1);
    EXPECT_NEAR(knees[1].before, 262, 262 * 0.03);
    EXPECT_GT(knees[1].after, 550); // DRAM
  }
}

TEST(knee, a_transition_between_levels_gives_one_knee_not_several) {
  std::vector<curve_point> curve;
  for (double x : {1.0, 2.0, 3.0, 4.0})
    curve.push_back({x * KiB, 30});
  for (double x : {5.0, 6.0, 7.0}) // three points, each its own level, on the way up
    curve.push_back({x * KiB, 30 + (x - 4) * 60});
  for (double x : {8.0, 9.0, 10.0, 11.0})
    curve.push_back({x * KiB, 250});
  const auto knees = find_knees(curve);
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_EQ(knees[0], (knee{4 * KiB, 30, 250}));
}

TEST(knee, noise_alone_makes_no_knee) {
  for (unsigned seed = 10; seed < 20; ++seed) {
    EXPECT_TRUE(find_knees(flat(33, 0.05, seed)).empty()) << "seed " << seed;
    EXPECT_TRUE(find_knees(flat(600, 0.10, seed)).empty()) << "seed " << seed;
  }
}

TEST(knee, a_single_spike_or_a_short_burst_that_comes_back_is_not_a_level) {
  auto spiked = flat(33, 0.02, 7);
  spiked[10].y = 90;  // one slow access
  spiked[25].y = 300; // another
  EXPECT_TRUE(find_knees(spiked).empty());
  auto burst = flat(262, 0.02, 8);
  burst[15].y = burst[16].y = 520; // two slow points in a row, then back to the L2 level
  EXPECT_TRUE(find_knees(burst).empty());
}

TEST(knee, the_order_of_the_points_does_not_matter) {
  auto curve = h100_like_sweep(3);
  const auto expected = find_knees(curve);
  std::reverse(curve.begin(), curve.end());
  EXPECT_EQ(find_knees(curve), expected);
  std::shuffle(curve.begin(), curve.end(), std::mt19937{42});
  EXPECT_EQ(find_knees(curve), expected);
}

TEST(knee, min_step_decides_how_large_a_change_counts) {
  std::vector<curve_point> curve;
  for (int i = 0; i < 6; ++i)
    curve.push_back({static_cast<double>(i), 100});
  for (int i = 6; i < 12; ++i)
    curve.push_back({static_cast<double>(i), 120}); // +20%
  EXPECT_TRUE(find_knees(curve, 0.25).empty());
  const auto knees = find_knees(curve, 0.10);
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_EQ(knees[0], (knee{5, 100, 120}));
}

TEST(knee, a_level_needs_two_points_and_short_or_broken_curves_give_nothing) {
  EXPECT_TRUE(find_knees({}).empty());
  EXPECT_TRUE(find_knees({{1024, 33}}).empty());
  // The last point alone above the level: not a level of its own.
  EXPECT_TRUE(find_knees({{1, 33}, {2, 33}, {3, 33}, {4, 300}}).empty());
  EXPECT_EQ(find_knees({{1, 33}, {2, 33}, {3, 300}, {4, 300}}).size(), 1u);
  EXPECT_TRUE(find_knees({{1, NAN}, {2, NAN}, {3, 33}}).empty());
}

namespace {

// One SM's L2 sweep as the H100 baseline run drew it (jobs/l2_size of 2026-11-27): flat at ~285
// cycles to 24 MiB, then a ramp through the far partition's share toward DRAM.
std::vector<curve_point> h100_one_sm_l2_sweep() {
  const double mib[] = {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64, 80, 96, 128, 160};
  const double y[] = {284.9, 284.7, 284.4, 284.8, 284.7, 284.6, 284.9, 288.5, 309.6, 337.3, 359.7,
                      377.4, 386.6, 397.6, 417.1, 438.9, 470.2, 516.1, 546.0, 582.0, 606.1};
  std::vector<curve_point> out;
  for (std::size_t i = 0; i < std::size(mib); ++i)
    out.push_back({mib[i] * MiB, y[i]});
  return out;
}

} // namespace

TEST(find_onset, a_ramp_after_the_level_starts_where_the_level_ends) {
  const auto onset = find_onset(h100_one_sm_l2_sweep());
  ASSERT_TRUE(onset);
  EXPECT_DOUBLE_EQ(onset->x, 24 * MiB) << "288.5 is within 5% of 284.8; 309.6 is not, nor anything after";
  EXPECT_NEAR(onset->level, 284.8, 0.2);
  EXPECT_DOUBLE_EQ(onset->top, 606.1);
  EXPECT_DOUBLE_EQ(onset->x_90, 128 * MiB) << "90% of the way from 284.8 to 606.1 is 574";
}

TEST(find_onset, a_spike_that_comes_back_does_not_end_the_level) {
  auto curve = h100_one_sm_l2_sweep();
  curve[3].y = 330; // 8 MiB: one slow point, then the level again
  const auto onset = find_onset(curve);
  ASSERT_TRUE(onset);
  EXPECT_DOUBLE_EQ(onset->x, 24 * MiB);
}

TEST(find_onset, finds_the_l1_size_of_the_noisy_h100_like_sweep) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const auto onset = find_onset(h100_like_sweep(seed));
    ASSERT_TRUE(onset) << seed;
    EXPECT_NEAR(onset->x, 256 * KiB, 0.2 * 256 * KiB) << seed;
    EXPECT_NEAR(onset->level, 33, 1.0) << seed;
  }
}

TEST(find_onset, no_knee_without_a_first_level_or_when_the_curve_never_leaves_it) {
  EXPECT_FALSE(find_onset({}));
  EXPECT_FALSE(find_onset({{1 * MiB, 280}, {2 * MiB, 600}})) << "one point is no level";
  EXPECT_FALSE(find_onset({{1 * MiB, 280}, {2 * MiB, 281}, {4 * MiB, 282}})) << "never left the level";
}

TEST(describe_onset, says_where_and_how_wide_in_the_parameters_unit) {
  const knee_onset onset{50 * MiB, 277, 601, 64 * MiB};
  EXPECT_EQ(describe_onset(onset, MiB, "MiB"),
            "knee at 50 MiB: the last size within 5% of the 277-cycle level; 90% of the way to 601 cycles by "
            "64 MiB (14 MiB wide, 28% of the size)");
}
