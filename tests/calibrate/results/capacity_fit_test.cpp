#include "calibrate/results/capacity_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace warpforge::calibrate;

namespace {

constexpr double MiB = 1024.0 * 1024.0;

// The hit rate of independent uniform references over F bytes of 128-byte lines in a hashed
// set-associative cache of `capacity` bytes with `ways` ways: lines per set are Poisson with mean
// F / sets / 128, a set holding n lines keeps min(n, ways) of them, so the hit rate is
// E[min(n, ways)] / E[n]. At F >= 1.5 capacities nearly every set is full: capacity / F.
double hashed_hit_rate(double bytes, double capacity, int ways) {
  const double sets = capacity / 128 / ways, mean = bytes / 128 / sets;
  double kept = 0, p = std::exp(-mean); // Poisson(mean) at n = 0
  for (int n = 0; n < 20 * ways + static_cast<int>(10 * mean); ++n) {
    kept += p * std::min(n, ways);
    p *= mean / (n + 1);
  }
  return std::min(1.0, kept / mean);
}

// l2_size's sweep as its program draws it over such a cache (hit 280, miss 650 cycles, each point
// with +-0.3% noise): 8 .. 64 MiB (1 MiB apart from 40), then 2, 2.5, 3, 4, 5 and 6 times the
// program's first estimate, the last size within 10% of the first.
std::vector<curve_point> walk_sweep(double capacity, int ways, unsigned seed) {
  std::mt19937 rng{seed};
  std::uniform_real_distribution<double> noise{-0.001, 0.001};
  const auto cycles = [&](double bytes) {
    const double hit = hashed_hit_rate(bytes, capacity, ways);
    return (hit * 280 + (1 - hit) * 650) * (1 + noise(rng));
  };
  std::vector<double> sizes{8, 16, 24, 32, 36};
  for (int mib = 40; mib <= 64; ++mib)
    sizes.push_back(mib);
  std::vector<curve_point> out;
  double estimate = 0;
  bool missed = false;
  for (const double mib : sizes) {
    out.push_back({mib * MiB, cycles(mib * MiB)});
    if (!missed && out.back().y <= out.front().y * 1.10)
      estimate = mib * MiB;
    else
      missed = true;
  }
  for (const double times : {2.0, 2.5, 3.0, 4.0, 5.0, 6.0})
    out.push_back({std::round(estimate * times / MiB) * MiB, cycles(std::round(estimate * times / MiB) * MiB)});
  return out;
}

// A recorded curve: the program's "RESULT: curve_x=<x> curve_y=<y>" lines.
std::vector<curve_point> recorded(const std::string& file) {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/calibrate/results/data/" + file};
  std::vector<curve_point> out;
  std::string line;
  while (std::getline(in, line)) {
    curve_point p;
    if (std::sscanf(line.c_str(), "RESULT: curve_x=%lf curve_y=%lf", &p.x, &p.y) == 2)
      out.push_back(p);
  }
  return out;
}

// Past the knee, a miss line of capacity 50 MiB from 100 MiB on (280 -> 650 cycles), with the
// sets still short of full at 70-90 MiB: the bytes held there are 46, 47.5 and 48.5 MiB.
std::vector<curve_point> short_sets_curve() {
  std::vector<curve_point> out;
  for (double mib : {8, 16, 24, 32})
    out.push_back({mib * MiB, 280});
  out.push_back({40 * MiB, 285});
  const auto at = [](double mib, double held_mib) { return curve_point{mib * MiB, 650 - 370 * held_mib / mib}; };
  out.push_back(at(70, 46));
  out.push_back(at(80, 47.5));
  out.push_back(at(90, 48.5));
  for (double mib : {100, 120, 150, 200, 250})
    out.push_back(at(mib, 50));
  return out;
}

} // namespace

TEST(fit_capacity, reads_the_recorded_h100_walks) {
  const auto l2 = fit_capacity(recorded("h100_l2_size_walk.txt"));
  ASSERT_TRUE(l2.has_value()) << l2.error();
  EXPECT_NEAR(l2->capacity / MiB, 50.1, 0.5);
  EXPECT_GE(l2->from, 2 * l2->capacity);
  const auto l1 = fit_capacity(recorded("h100_l1_size_walk.txt"));
  ASSERT_TRUE(l1.has_value()) << l1.error();
  EXPECT_NEAR(l1->capacity / 1024, 242, 3);
  EXPECT_GE(l1->from, 2 * l1->capacity);
}

TEST(fit_capacity, refits_past_twice_the_capacity_where_the_sets_are_still_short) {
  const auto fit = fit_capacity(short_sets_curve());
  ASSERT_TRUE(fit.has_value()) << fit.error();
  EXPECT_NEAR(fit->capacity / MiB, 50, 0.01);
  EXPECT_EQ(fit->from, 100 * MiB) << "the short sets are left out";
  EXPECT_EQ(fit->points, 5u);
}

TEST(fit_capacity, a_step_is_no_miss_line) {
  std::vector<curve_point> step;
  for (double mib : {8, 16, 24, 32, 40})
    step.push_back({mib * MiB, 280});
  for (double mib : {48, 64, 96, 128, 192, 256, 384})
    step.push_back({mib * MiB, 650});
  const auto fit = fit_capacity(step);
  ASSERT_FALSE(fit.has_value()) << fit->capacity / MiB << " MiB";
  EXPECT_NE(fit.error().find("does not fall on a line"), std::string::npos) << fit.error();
}

TEST(fit_capacity, latency_rising_in_proportion_to_the_set_is_no_miss_line) {
  std::vector<curve_point> ramp;
  for (double mib : {8, 16, 24, 32, 40})
    ramp.push_back({mib * MiB, 280});
  for (double mib : {48, 64, 96, 128, 192, 256, 384})
    ramp.push_back({mib * MiB, 280 + mib});
  const auto fit = fit_capacity(ramp);
  ASSERT_FALSE(fit.has_value()) << fit->capacity / MiB << " MiB";
  EXPECT_NE(fit.error().find("no line in 1 / F"), std::string::npos) << fit.error();
}

TEST(fit_capacity, a_miss_line_with_one_size_far_off_it_is_refused_by_its_rms) {
  auto curve = short_sets_curve();
  curve.back().y += 20; // 250 MiB: 20 cycles off a line with 370 from hit to miss
  const auto fit = fit_capacity(curve);
  ASSERT_FALSE(fit.has_value()) << fit->capacity / MiB << " MiB";
  EXPECT_NE(fit.error().find("no line in 1 / F"), std::string::npos) << fit.error();
}

TEST(fit_capacity, a_sweep_that_stops_short_of_twice_the_capacity_gives_none) {
  std::vector<curve_point> curve;
  for (double mib : {8, 16, 24, 32})
    curve.push_back({mib * MiB, 280});
  curve.push_back({40 * MiB, 285});
  for (double mib : {70, 75, 80, 85, 90}) // a 50 MiB cache's line, but all of it below 2 x 50
    curve.push_back({mib * MiB, 650 - 370 * 50 / mib});
  const auto fit = fit_capacity(curve);
  ASSERT_FALSE(fit.has_value());
  EXPECT_NE(fit.error().find("past twice the capacity"), std::string::npos) << fit.error();
  EXPECT_NE(fit.error().find("0 fitted size(s)"), std::string::npos) << fit.error();
}

TEST(fit_capacity, reads_a_hashed_set_associative_caches_capacity) {
  for (const int ways : {16, 32}) {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      const auto curve = walk_sweep(50 * MiB, ways, seed);
      const auto fit = fit_capacity(curve);
      ASSERT_TRUE(fit.has_value()) << fit.error();
      EXPECT_NEAR(fit->capacity / MiB, 50, 1.0) << ways << " ways, seed " << seed;
      EXPECT_NEAR(fit->miss_level, 650, 10);
      EXPECT_NEAR(fit->hit_level, 280, 2);
      EXPECT_GE(fit->points, 3u);
      EXPECT_LT(fit->rms, 5.0);
    }
  }
}

TEST(fit_capacity, follows_the_capacity_not_the_sizes_sampled) {
  const auto fit = fit_capacity(walk_sweep(40 * MiB, 16, 3));
  ASSERT_TRUE(fit.has_value()) << fit.error();
  EXPECT_NEAR(fit->capacity / MiB, 40, 1.0);
}

TEST(fit_capacity, a_curve_that_never_leaves_its_level_has_no_capacity) {
  std::vector<curve_point> flat;
  for (double mib = 8; mib <= 256; mib *= 2)
    flat.push_back({mib * MiB, 280});
  const auto fit = fit_capacity(flat);
  ASSERT_FALSE(fit.has_value());
  EXPECT_NE(fit.error().find("no first level"), std::string::npos) << fit.error();
}

TEST(fit_capacity, too_few_points_where_the_fit_starts_is_said) {
  std::vector<curve_point> curve{{8 * MiB, 280}, {16 * MiB, 280}, {32 * MiB, 281}, {48 * MiB, 400},
                                 {64 * MiB, 450}, {80 * MiB, 500}};
  const auto fit = fit_capacity(curve);
  ASSERT_FALSE(fit.has_value());
  EXPECT_NE(fit.error().find("2 point(s)"), std::string::npos) << fit.error();
}

TEST(fit_capacity, latency_that_falls_past_the_knee_is_no_miss_line) {
  std::vector<curve_point> curve{{8 * MiB, 280}, {16 * MiB, 280}, {32 * MiB, 281}, {48 * MiB, 600},
                                 {64 * MiB, 560}, {80 * MiB, 500}, {96 * MiB, 450}, {128 * MiB, 400}};
  const auto fit = fit_capacity(curve);
  ASSERT_FALSE(fit.has_value());
  EXPECT_NE(fit.error().find("does not fall on a line"), std::string::npos) << fit.error();
}

TEST(describe_fit, names_the_capacity_the_levels_and_the_fitted_range) {
  capacity_fit fit;
  fit.capacity = 50.2 * MiB;
  fit.hit_level = 280;
  fit.miss_level = 651.5;
  fit.rms = 1.25;
  fit.points = 5;
  fit.from = 96 * MiB;
  fit.to = 192 * MiB;
  EXPECT_EQ(describe_fit(fit, MiB, "MiB"),
            "capacity 50.2 MiB from the miss line past the knee: cycles = L_miss - (L_miss - L_hit) x C / F "
            "fitted over 5 working sets from 96 to 192 MiB (L_hit 280 cycles, the small sets; L_miss 651.5 "
            "cycles; rms 1.25 cycles)");
}
