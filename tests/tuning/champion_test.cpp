#include "tuning/champion.hpp"

#include "tuning/attempt_memory.hpp"

#include <gtest/gtest.h>

namespace warpforge::tuning {
namespace {

using vocabulary::branch_outcome;

branch_result passed(std::string name, double median_s, std::optional<double> ci_high_s = {}) {
  branch_result b;
  b.name = std::move(name);
  b.outcome = branch_outcome::passed;
  b.median_s = median_s;
  b.ci_high_s = ci_high_s;
  if (ci_high_s)
    b.ci_low_s = 2 * median_s - *ci_high_s;
  return b;
}

branch_result failed(std::string name, branch_outcome outcome, std::string detail = {},
                     double median_s = 0) {
  branch_result b;
  b.name = std::move(name);
  b.outcome = outcome;
  b.median_s = median_s;
  b.detail = std::move(detail);
  return b;
}

constexpr double threshold = 0.02;

TEST(ChampionElection, TheFastestBranchThatBeatsTheBestByMoreThanTheNoiseWins) {
  const std::vector<branch_result> branches{passed("a", 0.90e-3), passed("b", 0.80e-3),
                                            passed("c", 1.10e-3)};
  const auto e = elect_champion(1.0e-3, branches, threshold);
  ASSERT_TRUE(e.champion);
  EXPECT_EQ(*e.champion, 1u);
  EXPECT_EQ(e.verdicts, (std::vector<branch_verdict>{branch_verdict::rejected,
                                                     branch_verdict::accepted,
                                                     branch_verdict::rejected}));
  ASSERT_EQ(e.frontier.size(), 2u);
  EXPECT_EQ(e.frontier[0].branch, 0u) << "the frontier is fastest first";
  EXPECT_EQ(e.frontier[1].branch, 2u);
  EXPECT_NEAR(e.frontier[0].delta_s, 0.10e-3, 1e-12) << "delta from the champion";
}

TEST(ChampionElection, AGainWithinTheNoiseThresholdElectsNoChampion) {
  const std::vector<branch_result> branches{passed("a", 0.985e-3), passed("b", 1.01e-3)};
  const auto e = elect_champion(1.0e-3, branches, threshold);
  EXPECT_FALSE(e.champion) << "1.5% faster is within the 2% threshold";
  EXPECT_EQ(e.frontier.size(), 2u);
  EXPECT_NEAR(e.frontier[0].delta_s, -0.015e-3, 1e-12) << "delta from the old best";
}

TEST(ChampionElection, AGainJustInsideTheThresholdIsNotEnoughJustOutsideIs) {
  const std::vector<branch_result> inside{passed("a", 0.9801e-3)};
  EXPECT_FALSE(elect_champion(1.0e-3, inside, threshold).champion);
  EXPECT_TRUE(elect_champion(1.0e-3, inside, 0.0).champion) << "threshold 0: any gain";
  const std::vector<branch_result> outside{passed("a", 0.9799e-3)};
  EXPECT_TRUE(elect_champion(1.0e-3, outside, threshold).champion);
}

TEST(ChampionElection, AnIncorrectFastestBranchIsIgnored) {
  const std::vector<branch_result> branches{
      failed("fast_but_wrong", branch_outcome::incorrect, "out[17]: 3.5 vs 3.25", 0.1e-3),
      passed("slower", 0.9e-3)};
  const auto e = elect_champion(1.0e-3, branches, threshold);
  ASSERT_TRUE(e.champion);
  EXPECT_EQ(*e.champion, 1u);
  EXPECT_EQ(e.verdicts[0], branch_verdict::failed);
  EXPECT_EQ(e.frontier.size(), 0u) << "failed branches are not in the frontier";
}

TEST(ChampionElection, AllFailedElectsNobody) {
  const std::vector<branch_result> branches{failed("a", branch_outcome::compile_error),
                                            failed("b", branch_outcome::timeout)};
  const auto e = elect_champion(std::nullopt, branches, threshold);
  EXPECT_FALSE(e.champion);
  EXPECT_TRUE(e.frontier.empty());
}

TEST(ChampionElection, TheFirstMeasurementAlwaysCounts) {
  const std::vector<branch_result> branches{passed("a", 2e-3), passed("b", 1.5e-3)};
  const auto e = elect_champion(std::nullopt, branches, threshold);
  ASSERT_TRUE(e.champion);
  EXPECT_EQ(*e.champion, 1u);
}

TEST(ChampionElection, EqualMediansGoToTheTighterIntervalThenTheEarlierBranch) {
  const std::vector<branch_result> tied{passed("a", 0.9e-3, 0.95e-3), passed("b", 0.9e-3, 0.91e-3)};
  EXPECT_EQ(elect_champion(1e-3, tied, threshold).champion, 1u);
  const std::vector<branch_result> same{passed("a", 0.9e-3), passed("b", 0.9e-3)};
  EXPECT_EQ(elect_champion(1e-3, same, threshold).champion, 0u);
}

TEST(ChampionElection, AnIntervalReachingTheBestIsNoClearGain) {
  const std::vector<branch_result> branches{passed("noisy", 0.90e-3, 1.05e-3),
                                            passed("steady", 0.95e-3, 0.96e-3)};
  const auto e = elect_champion(1.0e-3, branches, threshold);
  ASSERT_TRUE(e.champion);
  EXPECT_EQ(*e.champion, 1u) << "the faster median cannot be told from noise";
}

TEST(ChampionElection, AThresholdOutsideZeroToOneIsRefused) {
  const std::vector<branch_result> branches{passed("a", 1e-3)};
  EXPECT_THROW(elect_champion(1e-3, branches, 1.0), std::invalid_argument);
  EXPECT_THROW(elect_champion(1e-3, branches, -0.1), std::invalid_argument);
}

TEST(ChampionElection, EveryVerdictHasAName) {
  for (auto v : all_branch_verdicts)
    EXPECT_EQ(branch_verdict_from_string(to_string(v)), v);
  EXPECT_FALSE(branch_verdict_from_string("maybe"));
}

TEST(AttemptMemory, EachAttemptGetsOneLineSayingWhy) {
  std::vector<branch_result> branches{
      passed("winner", 0.8e-3), passed("noise", 0.99e-3), passed("also_fast", 0.85e-3),
      passed("slow", 1.2e-3), failed("broken", branch_outcome::compile_error,
                                     "kernel.cu(12): error: identifier \"TILEX\" is undefined")};
  branches[0].methods = {"tiling_smem"};
  const auto e = elect_champion(1.0e-3, branches, threshold);
  const auto records = record_attempts(e, branches);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[0].line(), "ACCEPTED: 0.800 ms, 20.0% faster than the best 1.000 ms");
  EXPECT_EQ(records[0].methods, std::vector<std::string>{"tiling_smem"});
  EXPECT_EQ(records[1].line(), "REJECTED: 0.990 ms, 1.0% faster than the best 1.000 ms: within "
                               "the 2.0% noise threshold");
  EXPECT_EQ(records[2].line(), "REJECTED: 0.850 ms, 15.0% faster than the best 1.000 ms, but the "
                               "champion is faster (0.800 ms)");
  EXPECT_EQ(records[3].line(), "REJECTED: 1.200 ms, 20.0% slower than the best 1.000 ms");
  EXPECT_EQ(records[4].line(), "FAILED: compile_error: kernel.cu(12): error: identifier \"TILEX\" "
                               "is undefined");
  EXPECT_EQ(records[4].median_s, std::nullopt);
}

TEST(AttemptMemory, TheFirstMeasurementAndANoisyIntervalAreSaidSo) {
  const std::vector<branch_result> first{passed("a", 1.5e-6)};
  EXPECT_EQ(record_attempts(elect_champion(std::nullopt, first, threshold), first)[0].line(),
            "ACCEPTED: 1.5 us, the first measurement");
  const std::vector<branch_result> noisy{passed("a", 0.9e-3, 1.01e-3)};
  EXPECT_EQ(record_attempts(elect_champion(1e-3, noisy, threshold), noisy)[0].line(),
            "REJECTED: 0.900 ms, 10.0% faster than the best 1.000 ms, but its confidence interval "
            "reaches 1.010 ms");
}

} // namespace
} // namespace warpforge::tuning
