// Representative-configuration selection on recorded launches (issue 13: "CPU tests:
// representative-config selection on recorded launches").

#include "deploy/observe/representative.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace warpforge::observe {
namespace {

constexpr double us = 1e-6;

// A launch of kernel "k" as the injection library would record it; params name the launch.
launch_record launch(std::uint64_t seq, std::uint32_t grid_x, std::uint32_t block_x, double duration_us,
                     std::uint32_t smem = 0) {
  launch_record r;
  r.sequence = seq;
  r.kernel = "k";
  r.demangled = "k";
  r.grid = {grid_x, 1, 1};
  r.block = {block_x, 1, 1};
  r.dynamic_smem = smem;
  r.duration_s = duration_us * us;
  r.params = {{0, 4, to_hex(&seq, 4)}};
  return r;
}

double weight_sum(const representative_selection& s) {
  return std::accumulate(s.configs.begin(), s.configs.end(), 0.0,
                         [](double sum, const auto& c) { return sum + c.weight; });
}

TEST(Quantile, InterpolatesLinearlyBetweenOrderStatistics) {
  const std::vector<double> sorted{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.5), 2.5); // the mean of the middle two, as gpu::summarize
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.95), 3.85);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(sorted, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile(std::vector<double>{}, 0.5), 0.0);
}

TEST(Representative, GroupsByGeometryRanksByTotalTimeAndStopsOnceNinetyPercentIsCovered) {
  std::vector<launch_record> launches;
  std::uint64_t seq = 0;
  for (int i = 0; i < 10; ++i) launches.push_back(launch(seq++, 256, 128, 100)); // 1000 us
  for (int i = 0; i < 5; ++i) launches.push_back(launch(seq++, 64, 128, 100));   // 500 us
  launches.push_back(launch(seq++, 64, 128, 50, 1024));                          // 50 us, other smem
  auto picked = select_representative(launches, {});
  ASSERT_TRUE(picked) << picked.error();
  ASSERT_EQ(picked->configs.size(), 2u); // 1000 + 500 of 1550 = 96.8% >= 90%
  EXPECT_EQ(picked->configs[0].grid[0], 256u);
  EXPECT_EQ(picked->configs[0].launches, 10u);
  EXPECT_EQ(picked->configs[1].grid[0], 64u);
  EXPECT_EQ(picked->configs[1].dynamic_smem, 0u);
  EXPECT_NEAR(picked->total_s, 1550 * us, 1e-12);
  EXPECT_NEAR(picked->configs[0].weight, 1000.0 / 1500.0, 1e-12);
  EXPECT_NEAR(picked->configs[0].coverage, 1000.0 / 1550.0, 1e-12);
  EXPECT_NEAR(picked->covered, 1500.0 / 1550.0, 1e-12);
  EXPECT_NEAR(weight_sum(*picked), 1.0, 1e-12);
  EXPECT_TRUE(picked->notes.empty());
}

TEST(Representative, ABimodalGeometrySplitsIntoFastAndSlowBucketsAboveTheRatio) {
  std::vector<launch_record> launches;
  for (std::uint64_t i = 0; i < 10; ++i)
    launches.push_back(launch(i, 128, 256, i % 2 == 0 ? 10 : 100)); // p25 10, p95 100: ratio 10
  auto picked = select_representative(launches, {.split_ratio = 2.5, .coverage = 1.0, .top_k = 5});
  ASSERT_TRUE(picked) << picked.error();
  ASSERT_EQ(picked->configs.size(), 2u);
  EXPECT_EQ(picked->configs[0].bucket, duration_bucket::slow); // 500 us ranks above 50 us
  EXPECT_EQ(picked->configs[0].launches, 5u);
  EXPECT_NEAR(picked->configs[0].median_s, 100 * us, 1e-15);
  EXPECT_EQ(picked->configs[1].bucket, duration_bucket::fast);
  EXPECT_NEAR(picked->configs[1].total_s, 50 * us, 1e-15);
  EXPECT_NEAR(weight_sum(*picked), 1.0, 1e-12);
}

TEST(Representative, AGeometryWhoseSpreadIsTwoDoesNotSplitAtTwoAndAHalfButDoesAtOneAndAHalf) {
  std::vector<launch_record> launches;
  for (std::uint64_t i = 0; i < 10; ++i)
    launches.push_back(launch(i, 128, 256, i % 2 == 0 ? 10 : 20)); // p25 10, p95 20: ratio 2.0
  auto kept_whole = select_representative(launches, {});
  ASSERT_TRUE(kept_whole) << kept_whole.error();
  ASSERT_EQ(kept_whole->configs.size(), 1u);
  EXPECT_EQ(kept_whole->configs[0].bucket, duration_bucket::all);
  EXPECT_EQ(kept_whole->configs[0].launches, 10u);
  EXPECT_DOUBLE_EQ(kept_whole->configs[0].weight, 1.0);
  auto split = select_representative(launches, {.split_ratio = 1.5, .coverage = 1.0, .top_k = 5});
  ASSERT_TRUE(split) << split.error();
  EXPECT_EQ(split->configs.size(), 2u);
}

// Ten geometries holding 50, 20, 10, 8, 5, 3, 2, 1, 0.5, 0.5 us: 100 us in all.
std::vector<launch_record> ten_geometries() {
  const double times[] = {50, 20, 10, 8, 5, 3, 2, 1, 0.5, 0.5};
  std::vector<launch_record> launches;
  for (std::uint32_t i = 0; i < 10; ++i)
    launches.push_back(launch(i, i + 1, 32, times[i]));
  return launches;
}

TEST(Representative, CoverageStopsAtTheFirstBucketThatReachesNinetyPercent) {
  auto picked = select_representative(ten_geometries(), {.split_ratio = 2.5, .coverage = 0.9, .top_k = 10});
  ASSERT_TRUE(picked) << picked.error();
  ASSERT_EQ(picked->configs.size(), 5u); // 50+20+10+8 = 88%, +5 = 93%
  EXPECT_NEAR(picked->covered, 0.93, 1e-9);
  EXPECT_NEAR(weight_sum(*picked), 1.0, 1e-12);
  EXPECT_NEAR(picked->configs[4].weight, 5.0 / 93.0, 1e-9);
  EXPECT_TRUE(picked->notes.empty());
}

TEST(Representative, TopKCapsTheConfigurationsAndSaysCoverageFellShort) {
  auto picked = select_representative(ten_geometries(), {.split_ratio = 2.5, .coverage = 0.9, .top_k = 3});
  ASSERT_TRUE(picked) << picked.error();
  ASSERT_EQ(picked->configs.size(), 3u);
  EXPECT_NEAR(picked->covered, 0.80, 1e-9);
  EXPECT_NEAR(weight_sum(*picked), 1.0, 1e-12);
  EXPECT_NEAR(picked->configs[0].weight, 50.0 / 80.0, 1e-9);
  ASSERT_EQ(picked->notes.size(), 1u);
  EXPECT_NE(picked->notes[0].find("80.0%"), std::string::npos) << picked->notes[0];
  EXPECT_NE(picked->notes[0].find("short of 90.0%"), std::string::npos) << picked->notes[0];
}

TEST(Representative, TheScalarsAreThoseOfTheLaunchClosestToTheMedian) {
  std::vector<launch_record> launches{launch(7, 8, 32, 30), launch(8, 8, 32, 10), launch(9, 8, 32, 21)};
  auto picked = select_representative(launches, {});
  ASSERT_TRUE(picked) << picked.error();
  ASSERT_EQ(picked->configs.size(), 1u);
  EXPECT_EQ(picked->configs[0].median_sequence, 9u);
  EXPECT_EQ(picked->configs[0].scalars.front().hex, "09000000");
  EXPECT_NEAR(picked->configs[0].p25_s, 15.5 * us, 1e-15);
  EXPECT_NEAR(picked->configs[0].p95_s, 29.1 * us, 1e-15);
}

TEST(Representative, LaunchesWithoutADurationAreLeftOutAndCounted) {
  std::vector<launch_record> launches{launch(0, 8, 32, 10), launch(1, 8, 32, 0), launch(2, 16, 32, 0)};
  auto picked = select_representative(launches, {});
  ASSERT_TRUE(picked) << picked.error();
  EXPECT_EQ(picked->launches, 3u);
  EXPECT_EQ(picked->launches_without_duration, 2u);
  ASSERT_EQ(picked->configs.size(), 1u);
  EXPECT_EQ(picked->configs[0].launches, 1u);
  ASSERT_FALSE(picked->notes.empty());
  EXPECT_NE(picked->notes[0].find("2 of 3 launches have no duration"), std::string::npos) << picked->notes[0];
}

TEST(Representative, NoLaunchWithADurationIsAnError) {
  std::vector<launch_record> launches{launch(0, 8, 32, 0), launch(1, 8, 32, 0)};
  auto picked = select_representative(launches, {});
  ASSERT_FALSE(picked);
  EXPECT_NE(picked.error().find("none of the 2 launches has a duration"), std::string::npos) << picked.error();
}

TEST(Representative, OptionsOutOfRangeAreErrors) {
  auto one = std::vector<launch_record>{launch(0, 8, 32, 10)};
  EXPECT_FALSE(select_representative(one, {.split_ratio = 2.5, .coverage = 0.9, .top_k = 0}));
  EXPECT_FALSE(select_representative(one, {.split_ratio = 2.5, .coverage = 0.0, .top_k = 5}));
  EXPECT_FALSE(select_representative(one, {.split_ratio = 2.5, .coverage = 1.5, .top_k = 5}));
  EXPECT_FALSE(select_representative(one, {.split_ratio = 0.5, .coverage = 0.9, .top_k = 5}));
}

TEST(Representative, SelectsPerKernelInOrderOfFirstLaunch) {
  auto a = launch(0, 8, 32, 10);
  auto b = launch(1, 8, 32, 0);
  b.kernel = b.demangled = "other";
  auto c = launch(2, 16, 32, 20);
  auto picked = select_per_kernel(std::vector<launch_record>{a, b, c}, {});
  ASSERT_TRUE(picked) << picked.error();
  ASSERT_EQ(picked->size(), 2u);
  EXPECT_EQ((*picked)[0].kernel, "k");
  EXPECT_EQ((*picked)[0].selection.configs.size(), 2u);
  EXPECT_EQ((*picked)[1].kernel, "other");
  EXPECT_TRUE((*picked)[1].selection.configs.empty()); // no duration: no configs, and why
  ASSERT_EQ((*picked)[1].selection.notes.size(), 1u);
}

TEST(DurationBucket, EveryValueRoundTripsThroughItsName) {
  for (auto bucket : all_duration_buckets)
    EXPECT_EQ(duration_bucket_from_string(to_string(bucket)), bucket);
  EXPECT_FALSE(duration_bucket_from_string("medium"));
}

} // namespace
} // namespace warpforge::observe
