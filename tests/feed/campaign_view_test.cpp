#include "feed/campaign_view.hpp"

#include "feed/heartbeat.hpp"

#include "tests/feed/campaign_events.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace warpforge::feed {
namespace {

constexpr double start_ts = testing::campaign_start_ts;

/// Events as an optimize campaign's scheduler emits them (actors/scheduler.cpp), numbered by
/// seq, one second apart.
class campaign_timeline {
public:
  event& add(event_type type, std::string job = {}, std::int64_t iter = no_iter,
             std::int64_t branch = no_branch, int gpu = no_gpu, std::string detail_json = "{}") {
    events_.push_back(testing::campaign_event(++seq_, type, std::move(job), iter, branch, gpu, std::move(detail_json)));
    return events_.back();
  }

  /// A branch proposed, leased, measured and released on `gpu`.
  void measured(const std::string& job, std::int64_t iter, std::int64_t branch, int gpu, double time_s,
                std::string kind = "branch") {
    add(event_type::branch_proposed, job, iter, branch, no_gpu, detail{}.add("kind", kind).json());
    add(event_type::gpu_leased, job, iter, branch, gpu);
    add(event_type::gpu_released, job, iter, branch, gpu, detail{}.add("request_s", 0.5).json());
    add(event_type::branch_measured, job, iter, branch, gpu,
        detail{}.add("gpu_name", "NVIDIA H100 80GB HBM3").add("time_s", time_s).json());
  }

  const std::vector<event>& events() const { return events_; }

private:
  std::uint64_t seq_ = 0;
  std::vector<event> events_;
};

campaign_view applied(const campaign_timeline& t, campaign_view_options options = {}) {
  campaign_view view{options};
  for (const auto& e : t.events())
    view.apply(e);
  return view;
}

/// transpose: baseline 4 ms, iteration 1 finds 2 ms (champion), iteration 2 finds nothing better.
campaign_timeline two_iterations() {
  campaign_timeline t;
  t.add(event_type::campaign_started, {}, no_iter, no_branch, no_gpu,
        detail{}.add("resumed", false).add("wall_time_s", 3600.0).json());
  t.add(event_type::job_started, "transpose", no_iter, no_branch, no_gpu,
        detail{}.add("strategy", "random").add("space", 24).json());
  t.add(event_type::iteration_started, "transpose", 1);
  t.measured("transpose", 1, 0, 0, 4e-3, "baseline");
  t.measured("transpose", 1, 1, 1, 2e-3);
  t.add(event_type::champion_elected, "transpose", 1, 1, no_gpu, detail{}.add("time_s", 2e-3).json());
  t.add(event_type::iteration_finished, "transpose", 1, no_branch, no_gpu,
        detail{}.add("champion", true).add("best_s", 2e-3).json());
  t.add(event_type::diagnosis_ready, "transpose", 1, 1, 0,
        detail{}.add("compute", 0.9).add("memory", 0.2).add("latency", 0.5).add("near_peak", false)
          .add("arithmetic_intensity", 0.125).add("achieved_bandwidth", 2.68e12)
          .add("peak_bandwidth", 3.35e12).json());
  t.add(event_type::iteration_started, "transpose", 2);
  t.measured("transpose", 2, 0, 0, 2.1e-3);
  t.add(event_type::iteration_finished, "transpose", 2, no_branch, no_gpu,
        detail{}.add("champion", false).add("best_s", 2e-3).json());
  return t;
}

TEST(RunState, EveryValueRoundTripsThroughItsName) {
  for (auto state : all_run_states)
    EXPECT_EQ(run_state_from_string(to_string(state)), state);
  EXPECT_EQ(run_state_from_string("paused"), std::nullopt);
}

TEST(CampaignView, TheBaselineIsTheMeasurementOfTheBranchProposedAsBaseline) {
  auto view = applied(two_iterations());
  ASSERT_EQ(view.jobs().size(), 1u);
  const auto& job = view.jobs()[0];
  EXPECT_EQ(job.baseline_time_s, 4e-3);
  EXPECT_EQ(job.champion_time_s, 2e-3);
  EXPECT_EQ(job.champion_speedup(), 2.0);
  EXPECT_EQ(job.branches_proposed, 3u);
  EXPECT_EQ(job.branches_measured, 3u);
  EXPECT_EQ(job.iteration, 2);
}

TEST(CampaignView, KeepsTheSpeedUpAfterEveryIteration) {
  auto view = applied(two_iterations());
  const auto& points = view.jobs()[0].iterations;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].iteration, 1);
  EXPECT_EQ(points[0].best_s, 2e-3);
  EXPECT_EQ(points[0].speedup, 2.0);
  EXPECT_TRUE(points[0].champion);
  EXPECT_EQ(points[1].iteration, 2);
  EXPECT_FALSE(points[1].champion);
}

TEST(CampaignView, TheRooflinePositionIsTheLatestDiagnosis) {
  auto view = applied(two_iterations());
  ASSERT_TRUE(view.jobs()[0].roofline);
  const auto& roofline = *view.jobs()[0].roofline;
  EXPECT_EQ(roofline.iteration, 1);
  EXPECT_EQ(roofline.arithmetic_intensity, 0.125);
  EXPECT_DOUBLE_EQ(roofline.dram_fraction().value(), 0.8);
  EXPECT_EQ(roofline.memory_gap, 0.2);
  EXPECT_FALSE(roofline.near_peak);
  EXPECT_EQ(roofline.peak_flops, std::nullopt) << "not sent, not invented";
}

TEST(CampaignView, AJobsFinishSetsItsStopReasonAndTheCampaignsBest) {
  auto t = two_iterations();
  t.add(event_type::job_finished, "transpose", no_iter, no_branch, no_gpu,
        detail{}.add("stop", "patience").add("best_s", 1.6e-3).add("baseline_s", 4e-3).json());
  t.add(event_type::campaign_finished, {}, no_iter, no_branch, no_gpu,
        detail{}.add("reason", "").add("wall_s", 20.0).json());
  auto view = applied(t);
  const auto& job = view.jobs()[0];
  EXPECT_EQ(job.state, run_state::finished);
  EXPECT_EQ(job.stop, "patience");
  EXPECT_EQ(job.champion_speedup(), 2.5);
  ASSERT_EQ(view.campaigns().size(), 1u);
  EXPECT_EQ(view.campaigns()[0].state, run_state::finished);
  EXPECT_EQ(view.campaigns()[0].ended_ts, t.events().back().ts);
  EXPECT_EQ(view.campaigns()[0].wall_budget_s, 3600.0);
}

TEST(CampaignView, AFailedJobKeepsItsReason) {
  campaign_timeline t;
  t.add(event_type::job_started, "softmax");
  t.add(event_type::job_failed, "softmax", no_iter, no_branch, no_gpu,
        detail{}.add("reason", "baseline is incorrect").json());
  auto view = applied(t);
  EXPECT_EQ(view.jobs()[0].state, run_state::failed);
  EXPECT_EQ(view.jobs()[0].failure, "baseline is incorrect");
  ASSERT_EQ(view.problems().size(), 1u);
  EXPECT_EQ(view.problems()[0].message, "baseline is incorrect");
}

// docs/report.md's two words: occupied = leased over wall, busy = kernel time over wall.
TEST(CampaignView, AGpuIsOccupiedForItsLeasedTimeAndBusyForItsKernelTimeOverTheCampaignsTime) {
  campaign_timeline t;
  t.add(event_type::campaign_started);                  // ts +1
  t.add(event_type::gpu_leased, "transpose", 1, 0, 0);  // ts +2
  t.add(event_type::gpu_released, "transpose", 1, 0, 0, // ts +3: 1 s leased, 0.25 s of kernels
        detail{}.add("lease_s", 1.0).add("kernel_s", 0.25).json());
  t.add(event_type::gpu_leased, "transpose", 1, 1, 0);  // ts +4, still open
  auto view = applied(t);
  const auto& gpu = view.gpus().at(0);
  EXPECT_EQ(gpu.occupied_s, 1.0);
  EXPECT_EQ(gpu.kernel_s, 0.25);
  ASSERT_TRUE(gpu.leased_ts);
  EXPECT_EQ(gpu.leases, 2u);
  // From +1 to +6: 1 s closed + 2 s of the open lease = 3 of 5 s occupied; 0.25 of 5 s busy
  // (the open lease's kernel time is not known before its release).
  const auto& campaign = view.campaigns().at(0);
  EXPECT_DOUBLE_EQ(campaign.wall_s(start_ts + 6), 5.0);
  EXPECT_DOUBLE_EQ(gpu.occupied_share(campaign.wall_s(start_ts + 6), start_ts + 6), 0.6);
  EXPECT_DOUBLE_EQ(gpu.busy_share(campaign.wall_s(start_ts + 6)), 0.05);
  EXPECT_EQ(gpu.occupied_share(campaign.wall_s(start_ts + 1), start_ts + 1), 0.0) << "no time has passed";
  EXPECT_EQ(gpu.busy_share(campaign.wall_s(start_ts + 1)), 0.0) << "no time has passed";
}

TEST(CampaignView, TheCampaignsEndClosesEveryLeaseStillOpen) {
  campaign_timeline t;
  t.add(event_type::campaign_started);                  // ts +1
  t.add(event_type::gpu_leased, "transpose", 1, 0, 0);  // ts +2, never released
  t.add(event_type::campaign_finished);                 // ts +3
  auto view = applied(t);
  const auto& gpu = view.gpus().at(0);
  EXPECT_FALSE(gpu.leased_ts);
  EXPECT_EQ(gpu.occupied_s, 1.0);
  EXPECT_DOUBLE_EQ(gpu.occupied_share(view.campaigns().at(0).wall_s(start_ts + 9), start_ts + 9), 0.5)
    << "an ended campaign's wall time stops at its end";
}

// A resumed campaign's wall time is its runs', the time between them left out, as report counts it.
TEST(CampaignView, AResumedCampaignsWallTimeLeavesOutTheTimeBetweenItsRuns) {
  campaign_timeline t;
  t.add(event_type::campaign_started);                    // ts +1
  t.add(event_type::campaign_interrupted);                // ts +2: a run of 1 s
  t.add(event_type::campaign_started).ts = start_ts + 100; // resumed 98 s later
  auto view = applied(t);
  const auto& campaign = view.campaigns().at(0);
  EXPECT_DOUBLE_EQ(campaign.wall_s(start_ts + 104), 1.0 + 4.0);
}

TEST(CampaignView, AGpuNamesItselfAndAFailedRunnerTakesItOutOfService) {
  campaign_timeline t;
  t.add(event_type::runner_started, {}, no_iter, no_branch, 1,
        detail{}.add("gpu_name", "NVIDIA H200").add("pid", 42).json());
  t.add(event_type::runner_failed, {}, no_iter, no_branch, 1,
        detail{}.add("gpu_name", "NVIDIA H200").add("reason", "lost").json());
  auto view = applied(t);
  EXPECT_EQ(view.gpus().at(1).name, "NVIDIA H200");
  EXPECT_TRUE(view.gpus().at(1).out_of_service);
}

TEST(CampaignView, KeepsTheLatestEventsAndSkipsHeartbeats) {
  auto t = two_iterations();
  auto view = applied(t, campaign_view_options{.recent_events = 3});
  ASSERT_EQ(view.recent().size(), 3u);
  EXPECT_EQ(view.recent().back().seq, t.events().back().seq);
  EXPECT_EQ(view.recent().front().seq, t.events().back().seq - 2);

  const auto applied_before = view.applied();
  EXPECT_FALSE(view.apply(to_event(heartbeat{t.events().back().seq + 5, 1.0, "", "", 0}, start_ts, "nightly")));
  EXPECT_EQ(view.applied(), applied_before);
  EXPECT_EQ(view.last_seq(), t.events().back().seq) << "a heartbeat's seq does not move the log on";
}

TEST(CampaignView, AResumedIterationIsCountedOnce) {
  auto t = two_iterations();
  t.add(event_type::iteration_finished, "transpose", 2, no_branch, no_gpu,
        detail{}.add("champion", true).add("best_s", 1e-3).json());
  auto view = applied(t);
  ASSERT_EQ(view.jobs()[0].iterations.size(), 2u);
  EXPECT_EQ(view.jobs()[0].iterations[1].speedup, 4.0);
}

TEST(CampaignView, AJobsLlmCallsAddUpItsLanguageModelSpend) {
  auto t = two_iterations();
  auto call = [&](std::string job, std::int64_t n, std::string outcome, std::int64_t input, double cost) {
    t.add(event_type::llm_call, std::move(job), 3, no_branch, no_gpu,
          detail{}.add("call", n).add("purpose", "propose").add("model", "m").add("outcome", outcome)
            .add("input_tokens", input).add("output_tokens", 100).add("cache_read_tokens", 20)
            .add("cache_write_tokens", 3).add("cost_usd", cost).add("seconds", 2.5).json());
  };
  call("transpose", 1, "ok", 1000, 0.25);
  call("transpose", 2, "rate_limited", 0, 0.0);
  call("gemm", 1, "ok", 50, 0.5);
  auto view = applied(t);
  ASSERT_EQ(view.jobs().size(), 2u);
  const auto& transpose = view.jobs()[0];
  EXPECT_EQ(transpose.llm_calls, 2u);
  EXPECT_EQ(transpose.llm_failed_calls, 1u);
  EXPECT_EQ(transpose.llm_tokens, 1000 + 2 * (100 + 20 + 3));
  EXPECT_DOUBLE_EQ(transpose.llm_cost_usd, 0.25);
  EXPECT_EQ(transpose.best_time_s, 2e-3) << "a call is not a result";
  const auto& gemm = view.jobs()[1];
  EXPECT_EQ(gemm.llm_calls, 1u);
  EXPECT_EQ(gemm.llm_failed_calls, 0u);
  EXPECT_DOUBLE_EQ(gemm.llm_cost_usd, 0.5);
  // A replayed call (same seq) is not counted twice.
  EXPECT_FALSE(view.apply(t.events().back()));
  EXPECT_EQ(view.jobs()[1].llm_calls, 1u);
}

} // namespace
} // namespace warpforge::feed
