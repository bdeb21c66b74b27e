#include "tuning/attribution.hpp"

#include <gtest/gtest.h>

namespace warpforge::tuning {
namespace {

using vocabulary::branch_outcome;

ablation_result timed(std::string method, double median_s) {
  return {std::move(method), branch_outcome::passed, median_s, false};
}

constexpr double threshold = 0.02;

TEST(Attribution, IsTheTimeWithoutTheMethodMinusTheChampions) {
  // Recorded timings of a transpose champion (0.21 ms) and its leave-one-out variants.
  const std::vector<ablation_result> ablations{timed("tiling_smem", 0.60e-3),
                                               timed("bank_conflict", 0.30e-3)};
  const auto a = attribute_methods(0.21e-3, ablations, threshold);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].method, "tiling_smem");
  EXPECT_NEAR(*a[0].attribution_s, 0.39e-3, 1e-12);
  EXPECT_NEAR(*a[0].attribution_ratio, 0.39 / 0.21, 1e-9);
  EXPECT_EQ(a[0].verdict, method_class::effective);
  EXPECT_NEAR(*a[1].attribution_s, 0.09e-3, 1e-12);
  EXPECT_EQ(a[1].verdict, method_class::effective);
  EXPECT_EQ(a[1].note, "without it 0.300 ms vs 0.210 ms (42.9%)");
}

TEST(Attribution, WithinTheNoiseIsIneffective) {
  const std::vector<ablation_result> ablations{timed("loop_unroll", 1.015e-3),
                                               timed("just_inside", 1.0199e-3),
                                               timed("just_outside", 1.0201e-3)};
  const auto a = attribute_methods(1e-3, ablations, threshold);
  EXPECT_EQ(a[0].verdict, method_class::ineffective);
  EXPECT_EQ(a[0].note, "without it 1.015 ms vs 1.000 ms (1.5%): within the 2.0% noise threshold");
  EXPECT_EQ(a[1].verdict, method_class::ineffective);
  EXPECT_EQ(a[2].verdict, method_class::effective) << "more than the threshold is effective";
}

TEST(Attribution, FasterWithoutTheMethodIsIneffectiveAndSaysSo) {
  const std::vector<ablation_result> ablations{timed("vectorized_access", 0.9e-3)};
  const auto a = attribute_methods(1e-3, ablations, threshold);
  EXPECT_EQ(a[0].verdict, method_class::ineffective);
  EXPECT_LT(*a[0].attribution_s, 0);
  EXPECT_EQ(a[0].note, "without it 0.900 ms vs 1.000 ms (-10.0%): faster without it");
}

TEST(Attribution, AbsentFromTheSassIsImplementationFailedWhateverTheTiming) {
  std::vector<ablation_result> ablations{timed("async_copy", 2e-3), timed("tiling_smem", 1e-3)};
  ablations[0].sass_absent = true;
  ablations[1].sass_absent = true;
  ablations[1].outcome = branch_outcome::not_run;
  const auto a = attribute_methods(1e-3, ablations, threshold);
  EXPECT_EQ(a[0].verdict, method_class::implementation_failed);
  EXPECT_TRUE(a[0].attribution_s) << "the timing is still reported";
  EXPECT_EQ(a[1].verdict, method_class::implementation_failed);
  EXPECT_EQ(a[1].note, "the SASS check found it absent");
}

TEST(Attribution, NoTimedVariantIsNotMeasured) {
  const std::vector<ablation_result> ablations{
      {"warp_shuffle", branch_outcome::not_run, 0, false},
      {"tiling_smem", branch_outcome::incorrect, 0.5e-3, false}};
  const auto a = attribute_methods(1e-3, ablations, threshold);
  EXPECT_EQ(a[0].verdict, method_class::not_measured);
  EXPECT_EQ(a[0].note, "no leave-one-out variant was measured");
  EXPECT_FALSE(a[0].attribution_s);
  EXPECT_EQ(a[1].verdict, method_class::not_measured);
  EXPECT_EQ(a[1].note, "the leave-one-out variant did not pass: incorrect");
  EXPECT_FALSE(a[1].attribution_s) << "an incorrect variant's time means nothing";
}

TEST(Attribution, ANonPositiveChampionTimeIsRefused) {
  EXPECT_THROW(attribute_methods(0, {}, threshold), std::invalid_argument);
  EXPECT_THROW(attribute_methods(1e-3, {}, 1.5), std::invalid_argument);
}

TEST(Attribution, EveryClassHasAName) {
  for (auto c : all_method_classes)
    EXPECT_EQ(method_class_from_string(to_string(c)), c);
  EXPECT_FALSE(method_class_from_string("essential"));
}

} // namespace
} // namespace warpforge::tuning
