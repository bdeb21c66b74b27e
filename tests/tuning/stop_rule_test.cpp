#include "tuning/stop_rule.hpp"

#include <gtest/gtest.h>

namespace warpforge::tuning {
namespace {

stop_limits limits() { return {10, 3, 3600.0, std::optional<std::uint64_t>{40}}; }

TEST(StopRule, GoesOnWhileEveryLimitHasRoom) {
  job_progress p;
  p.iterations = 2;
  p.evaluations = 8;
  p.elapsed_s = 100;
  EXPECT_EQ(should_stop(p, limits()), std::nullopt);
}

TEST(StopRule, StopsAtEachLimit) {
  job_progress p;
  p.near_peak = true;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::near_peak);
  p = {};
  p.elapsed_s = 3600;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::wall_time);
  p = {};
  p.iterations = 10;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::iteration_budget);
  p = {};
  p.evaluations = 40;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::evaluation_budget);
  p = {};
  p.iterations_without_gain = 3;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::patience);
  p = {};
  p.space_exhausted = true;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::space_exhausted);
}

TEST(StopRule, NearPeakComesFirstWhenSeveralHold) {
  job_progress p;
  p.near_peak = true;
  p.iterations = 99;
  p.iterations_without_gain = 99;
  EXPECT_EQ(should_stop(p, limits()), stop_reason::near_peak);
}

TEST(StopRule, NoEvaluationCapMeansTheBudgetAlone) {
  auto l = limits();
  l.max_evaluations.reset();
  job_progress p;
  p.evaluations = 1'000'000;
  EXPECT_EQ(should_stop(p, l), std::nullopt);
}

TEST(StopRule, PatienceCountsIterationsWithoutAChampion) {
  job_progress p;
  p = after_iteration(p, true, 4);
  p = after_iteration(p, false, 4);
  p = after_iteration(p, false, 4);
  EXPECT_EQ(p.iterations_without_gain, 2u);
  EXPECT_EQ(should_stop(p, limits()), std::nullopt);
  p = after_iteration(p, false, 4);
  EXPECT_EQ(should_stop(p, limits()), stop_reason::patience);
  p = after_iteration(p, true, 4);
  EXPECT_EQ(p.iterations_without_gain, 0u);
  EXPECT_EQ(p.iterations, 5u);
  EXPECT_EQ(p.evaluations, 20u);
}

TEST(StopRule, LimitsComeFromTheBudgetAndTheEvaluationCap) {
  config::budget_spec budget;
  budget.iterations = 7;
  budget.patience = 2;
  budget.wall_time_s = 60;
  const auto l = stop_limits_from(budget, 12);
  EXPECT_EQ(l.iterations, 7u);
  EXPECT_EQ(l.patience, 2u);
  EXPECT_EQ(l.wall_time_s, 60);
  EXPECT_EQ(l.max_evaluations, 12u);
  EXPECT_EQ(stop_limits_from(budget, std::nullopt).max_evaluations, std::nullopt);
}

TEST(StopRule, EveryReasonHasAName) {
  for (auto r : all_stop_reasons)
    EXPECT_EQ(stop_reason_from_string(to_string(r)), r);
  EXPECT_FALSE(stop_reason_from_string("bored"));
}

} // namespace
} // namespace warpforge::tuning
