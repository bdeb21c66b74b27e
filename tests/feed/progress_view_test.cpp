#include "feed/progress_view.hpp"

#include "tests/feed/campaign_events.hpp"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

namespace warpforge::feed {
namespace {

constexpr double start_ts = testing::campaign_start_ts;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing::campaign_event;

/// Two jobs on two GPUs, 10 s into a one-hour campaign: transpose at 2x after iteration 1 and
/// measuring on GPU 0, row_reduction finished.
campaign_view ten_seconds_in() {
  campaign_view view;
  std::uint64_t seq = 0;
  auto add = [&](event e) { view.apply(e); };
  add(campaign_event(++seq, event_type::campaign_started, {}, no_iter, no_branch, no_gpu,
           detail{}.add("wall_time_s", 3600.0).json()));
  add(campaign_event(++seq, event_type::job_started, "transpose"));
  add(campaign_event(++seq, event_type::job_started, "row_reduction"));
  add(campaign_event(++seq, event_type::branch_proposed, "transpose", 1, 0, no_gpu, detail{}.add("kind", "baseline").json()));
  add(campaign_event(++seq, event_type::branch_measured, "transpose", 1, 0, 0, detail{}.add("time_s", 4e-3).json()));
  add(campaign_event(++seq, event_type::iteration_finished, "transpose", 1, no_branch, no_gpu,
           detail{}.add("champion", true).add("best_s", 2e-3).json()));
  add(campaign_event(++seq, event_type::job_finished, "row_reduction", no_iter, no_branch, no_gpu,
           detail{}.add("stop", "patience").add("best_s", 1e-3).add("baseline_s", 1.5e-3).json()));
  add(campaign_event(++seq, event_type::gpu_leased, "row_reduction", 1, 2, 1));
  add(campaign_event(++seq, event_type::gpu_released, "row_reduction", 1, 2, 1,
           detail{}.add("kernel_s", 0.5).json()));
  add(campaign_event(++seq, event_type::gpu_leased, "transpose", 2, 3, 0));
  return view;
}

TEST(ProgressBlock, ShowsElapsedBudgetJobsCandidatesBestSpeedUpsAndGpus) {
  auto view = ten_seconds_in();
  progress_context context;
  context.now_ts = start_ts + 11; // 10 s after campaign_started (+1)
  context.feed_state = "live";
  EXPECT_THAT(render_progress_block(view, context),
              ElementsAre("warpforge nightly: running 0:00:10, wall budget left 0:59:50 (feed live, seq 10)",
                          "jobs 2 (1 running, 1 finished, 0 failed)  candidates measured 1, failed 0  GPUs leased 1/2",
                          "  transpose      iter 2      measured 1     best 2.00x",
                          "  row_reduction  finished (patience)  measured 0     best 1.50x",
                          "  GPU 0  busy 0.0%    occupied 10.0%   transpose iter 2 branch 3",
                          "  GPU 1  busy 5.0%    occupied 10.0%   idle"));
}

TEST(ProgressBlock, AJobThatCalledALanguageModelShowsItsCallsAndDollars) {
  auto view = ten_seconds_in();
  auto seq = *view.last_seq();
  for (double cost : {0.12, 0.25})
    view.apply(campaign_event(++seq, event_type::llm_call, "transpose", 2, no_branch, no_gpu,
                              detail{}.add("outcome", "ok").add("cost_usd", cost).json()));
  progress_context context;
  context.now_ts = start_ts + 13;
  auto lines = render_progress_block(view, context);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[2], "  transpose      iter 2      measured 1     best 2.00x  llm 2 calls $0.37");
  EXPECT_EQ(lines[3], "  row_reduction  finished (patience)  measured 0     best 1.50x") << "no call: no llm text";
}

TEST(ProgressBlock, AGivenWallBudgetWinsAndLinesAreCutToTheWidth) {
  auto view = ten_seconds_in();
  progress_context context;
  context.now_ts = start_ts + 11;
  context.wall_budget_s = 60.0;
  context.width = 40;
  auto lines = render_progress_block(view, context);
  EXPECT_EQ(lines[0], "warpforge nightly: running 0:00:10, wall");
  for (const auto& line : lines)
    EXPECT_LE(line.size(), 40u) << line;
}

TEST(ProgressBlock, BeforeAnyEventItSaysItIsWaiting) {
  campaign_view view;
  EXPECT_THAT(render_progress_block(view, progress_context{}),
              ElementsAre("warpforge waiting for the first event",
                          "jobs 0 (0 running, 0 finished, 0 failed)  candidates measured 0, failed 0  GPUs leased 0/0"));
}

TEST(ProgressLine, NamesWhatEndedWithTheJobsBestAndSaysNothingOfRoutineEvents) {
  campaign_view view;
  auto show = [&](const event& e) {
    view.apply(e);
    return render_progress_line(view, e);
  };
  EXPECT_EQ(show(campaign_event(1, event_type::campaign_started)), "progress: campaign nightly started");
  EXPECT_EQ(show(campaign_event(2, event_type::job_started, "transpose")), "progress: transpose started");
  EXPECT_EQ(show(campaign_event(3, event_type::branch_proposed, "transpose", 1, 0, no_gpu,
                      detail{}.add("kind", "baseline").json())),
            std::nullopt);
  EXPECT_EQ(show(campaign_event(4, event_type::branch_measured, "transpose", 1, 0, 0, detail{}.add("time_s", 4e-3).json())),
            std::nullopt);
  EXPECT_EQ(show(campaign_event(5, event_type::iteration_finished, "transpose", 1, no_branch, no_gpu,
                      detail{}.add("champion", true).add("best_s", 2e-3).json())),
            "progress: transpose iteration 1: best 2.00 ms (2.00x), a new champion");
  EXPECT_EQ(show(campaign_event(6, event_type::runner_restarted, {}, no_iter, no_branch, 1,
                      detail{}.add("reason", "watchdog").json())),
            "progress: #6 21:00:06 runner_restarted nightly gpu 1: reason=watchdog");
  EXPECT_EQ(show(campaign_event(7, event_type::job_finished, "transpose", no_iter, no_branch, no_gpu,
                      detail{}.add("stop", "near_peak").add("best_s", 1e-3).add("baseline_s", 4e-3).json())),
            "progress: transpose finished (near_peak): best 1.00 ms (4.00x)");
  EXPECT_EQ(show(campaign_event(9, event_type::campaign_finished, {}, no_iter, no_branch, no_gpu,
                      detail{}.add("reason", "").json())),
            "progress: campaign nightly finished after 0:00:08");
}

// bench and diagnose measure kernels but elect no champion: the job's end names its fastest.
TEST(ProgressLines, AJobWithMeasurementsButNoChampionNamesItsFastest) {
  campaign_view view;
  auto show = [&](const event& e) {
    view.apply(e);
    return render_progress_line(view, e);
  };
  show(campaign_event(1, event_type::campaign_started));
  show(campaign_event(2, event_type::job_started, "transpose"));
  show(campaign_event(3, event_type::branch_measured, "transpose", 1, 0, 0, detail{}.add("time_s", 1.1e-3).json()));
  EXPECT_EQ(show(campaign_event(4, event_type::job_finished, "transpose", no_iter, no_branch, no_gpu,
                      detail{}.add("stop", "done").json())),
            "progress: transpose finished (done): fastest 1.10 ms, 1 measured");
}

TEST(ProgressSummary, IsOneLineWithTheCountsTheBudgetAndEachJobsSpeedUp) {
  auto view = ten_seconds_in();
  progress_context context;
  context.now_ts = start_ts + 301;
  EXPECT_EQ(render_progress_summary(view, context),
            "progress 0:05:00: jobs 1 running, 1 finished, 0 failed; 1 candidates measured; GPUs leased 1/2; "
            "wall budget left 0:55:00; transpose 2.00x; row_reduction 1.50x");
}

} // namespace
} // namespace warpforge::feed
