#include "feed/tail_view.hpp"

#include "tests/feed/campaign_events.hpp"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <vector>

namespace warpforge::feed {
namespace {

constexpr double start_ts = testing::campaign_start_ts;

using ::testing::HasSubstr;
using ::testing::Not;

/// Builds events with increasing seq and ts, as the store would number them.
class timeline {
public:
  event& add(event_type type, std::string job = {}, std::int64_t iter = no_iter,
             std::int64_t branch = no_branch, int gpu = no_gpu, std::string detail_json = "{}") {
    events_.push_back(testing::campaign_event(++seq_, type, std::move(job), iter, branch, gpu, std::move(detail_json)));
    return events_.back();
  }
  const std::vector<event>& events() const { return events_; }

private:
  std::uint64_t seq_ = 0;
  std::vector<event> events_;
};

/// Two jobs on two GPUs: one makes progress, one fails; a runner crashes on the way.
timeline realistic_night() {
  timeline t;
  t.add(event_type::campaign_started, {}, no_iter, no_branch, no_gpu,
        detail{}.add("jobs", 2).add("gpus", 2).json());
  t.add(event_type::job_started, "gemm_fp16", no_iter, no_branch, no_gpu,
        detail{}.add("baseline_time_s", 2.0e-3).json());
  t.add(event_type::job_started, "softmax", no_iter, no_branch, no_gpu, "{}");
  t.add(event_type::gpu_leased, "gemm_fp16", 0, no_branch, 0);
  t.add(event_type::gpu_leased, "softmax", 0, no_branch, 1);
  t.add(event_type::iteration_started, "gemm_fp16", 0);
  t.add(event_type::branch_measured, "gemm_fp16", 0, 0, 0,
        detail{}.add("time_s", 1.6e-3).add("cv", 0.01).add("gpu_name", "NVIDIA H100").json());
  t.add(event_type::branch_failed, "gemm_fp16", 0, 1, no_gpu,
        detail{}.add("outcome", "compile_error").add("reason", "identifier undefined").json());
  t.add(event_type::champion_elected, "gemm_fp16", 0, 0, no_gpu,
        detail{}.add("time_s", 1.6e-3).add("speedup", 1.25).json());
  t.add(event_type::runner_restarted, "softmax", 0, 2, 1,
        detail{}.add("reason", "illegal address").add("exit_code", 139).add("attempt", 1).json());
  t.add(event_type::iteration_started, "gemm_fp16", 1);
  t.add(event_type::branch_measured, "gemm_fp16", 1, 3, 0,
        detail{}.add("time_s", 1.0e-3).add("cv", 0.02).json());
  t.add(event_type::job_failed, "softmax", 0, no_branch, no_gpu,
        detail{}.add("reason", "baseline is incorrect").json());
  t.add(event_type::gpu_released, "softmax", no_iter, no_branch, 1);
  t.add(event_type::feed_dropped, {}, no_iter, no_branch, no_gpu,
        detail{}.add("dropped", 3).add("dropped_total", 3).json());
  return t;
}

TEST(TailView, RendersJobProgressGpuActivityAndProblems) {
  tail_view view;
  auto night = realistic_night();
  for (const auto& e : night.events())
    EXPECT_TRUE(view.apply(e));
  EXPECT_EQ(view.render(),
            "warpforge tail: 15 events, last seq 15, dropped by the feed 3"
            " (replay from the store to fill the gap)\n"
            "campaign nightly: running (since 21:00:01 UTC, last event 21:00:15 UTC)\n"
            "\n"
            "JOB        STATE    ITER  MEASURED  FAILED  BEST TIME  SPEED-UP\n"
            "gemm_fp16  running     1         2       1    1.00 ms     2.00x\n"
            "softmax    failed      0         0       0          -         -\n"
            "\n"
            "GPU  ACTIVITY\n"
            "0    gemm_fp16 iter 1 branch 3: branch_measured 1.00 ms at 21:00:12\n"
            "1    idle since 21:00:14\n"
            "\n"
            "PROBLEMS (latest 2 of 2)\n"
            "#10 21:00:10 runner_restarted nightly/softmax iter 0 branch 2 gpu 1: illegal address"
            " [attempt=1 exit_code=139]\n"
            "#13 21:00:13 job_failed nightly/softmax iter 0: baseline is incorrect\n");
}

TEST(TailView, TracksBestTimeAndSpeedUpFromTheDetail) {
  tail_view view;
  auto night = realistic_night();
  for (const auto& e : night.events())
    view.apply(e);
  ASSERT_EQ(view.jobs().size(), 2u);
  const auto& gemm = view.jobs()[0];
  EXPECT_EQ(gemm.name, "gemm_fp16");
  EXPECT_EQ(gemm.state, run_state::running);
  EXPECT_EQ(gemm.iteration, 1);
  EXPECT_EQ(gemm.branches_measured, 2u);
  EXPECT_EQ(gemm.branches_failed, 1u);
  EXPECT_EQ(gemm.best_time_s, 1.0e-3);
  // The champion said 1.25x; the later 1.0 ms measurement against the 2.0 ms baseline is 2x.
  EXPECT_EQ(gemm.best_speedup, 2.0);
  EXPECT_EQ(view.jobs()[1].state, run_state::failed);
  EXPECT_EQ(view.feed_dropped(), 3u);
  ASSERT_EQ(view.gpus().size(), 2u);
  EXPECT_FALSE(view.gpus().at(0).idle);
  EXPECT_EQ(view.gpus().at(0).last, event_type::branch_measured);
  EXPECT_TRUE(view.gpus().at(1).idle);
}

TEST(TailView, AnEventWithAnAlreadyAppliedSeqIsIgnored) {
  tail_view view;
  auto night = realistic_night();
  for (const auto& e : night.events())
    view.apply(e);
  auto frame = view.render();
  for (const auto& e : night.events())
    EXPECT_FALSE(view.apply(e)) << "seq " << e.seq;
  EXPECT_EQ(view.render(), frame);
  EXPECT_EQ(view.applied(), night.events().size());
  EXPECT_EQ(view.ignored(), night.events().size());
  EXPECT_EQ(view.jobs()[0].branches_measured, 2u);
}

TEST(TailView, AReplayFollowedByOverlappingLiveEventsCountsEachEventOnce) {
  auto night = realistic_night();
  const auto& events = night.events();
  constexpr std::size_t replayed = 10; // from the store
  constexpr std::size_t overlap = 3;   // live events the replay already had
  tail_view straight;
  for (const auto& e : events)
    straight.apply(e);
  tail_view joined_late;
  for (std::size_t index = 0; index < replayed; ++index)
    joined_late.apply(events[index]);
  for (std::size_t index = replayed - overlap; index < events.size(); ++index)
    joined_late.apply(events[index]);
  EXPECT_EQ(joined_late.render(), straight.render());
  EXPECT_EQ(joined_late.ignored(), overlap);
}

TEST(TailView, SeqZeroIsAppliedOnce) {
  tail_view view;
  event first;
  first.seq = 0;
  first.type = event_type::campaign_started;
  first.campaign = "nightly";
  EXPECT_TRUE(view.apply(first));
  EXPECT_FALSE(view.apply(first));
  EXPECT_EQ(view.last_seq(), 0u);
}

TEST(TailView, KeepsOnlyTheLatestProblems) {
  tail_view view{tail_options{.problem_lines = 2}};
  timeline t;
  for (int index = 0; index < 5; ++index)
    t.add(event_type::error, "gemm_fp16", no_iter, no_branch, no_gpu,
          detail{}.add("message", "failure " + std::to_string(index)).json());
  for (const auto& e : t.events())
    view.apply(e);
  ASSERT_EQ(view.problems().size(), 2u);
  EXPECT_EQ(view.problems()[0].message, "failure 3");
  EXPECT_EQ(view.problems()[1].message, "failure 4");
  EXPECT_THAT(view.render(), HasSubstr("PROBLEMS (latest 2 of 5)\n"));
}

TEST(TailView, AnEmptyViewSaysSo) {
  EXPECT_EQ(tail_view{}.render(), "warpforge tail: no events yet\n");
}

TEST(TailView, RenderLineShowsSeqTimeTypePlaceAndDetail) {
  tail_view view;
  timeline t;
  const auto& measured = t.add(event_type::branch_measured, "gemm_fp16", 2, 7, 0,
                               detail{}
                                 .add("time_s", 0.0016)
                                 .add("cv", 0.01)
                                 .add("gpu_name", "NVIDIA H100")
                                 .add_raw("methods", R"(["tma"])")
                                 .json());
  EXPECT_EQ(view.render_line(measured),
            "#1 21:00:01 branch_measured nightly/gemm_fp16 iter 2 branch 7 gpu 0: time_s=0.0016 "
            "cv=0.01 gpu_name=\"NVIDIA H100\" methods=[\"tma\"]");
  const auto& started = t.add(event_type::campaign_started);
  EXPECT_EQ(view.render_line(started), "#2 21:00:02 campaign_started nightly");
}

TEST(TailView, ANullMemberReadsNotMeasuredNeverANumber) {
  tail_view view;
  timeline t;
  const auto& failed = t.add(event_type::job_failed, "l2_size", no_iter, no_branch, no_gpu,
                             detail{}
                               .add("status", "NO_DATA")
                               .add_null("value")
                               .add_null("cv")
                               .add("trials", 0)
                               .add("not_measured_reason", "not run: no GPU")
                               .json());
  EXPECT_EQ(view.render_line(failed),
            "#1 21:00:01 job_failed nightly/l2_size: status=NO_DATA value=\"not measured\" cv=\"not measured\" "
            "trials=0 not_measured_reason=\"not run: no GPU\"");
}

TEST(TailView, ColourIsOffByDefaultAndMarksStatesAndProblemsWhenOn) {
  auto night = realistic_night();
  tail_view plain;
  tail_view coloured{tail_options{.colour = true}};
  for (const auto& e : night.events()) {
    plain.apply(e);
    coloured.apply(e);
    EXPECT_THAT(plain.render_line(e), Not(HasSubstr("\x1b[")));
  }
  EXPECT_THAT(plain.render(), Not(HasSubstr("\x1b[")));
  auto frame = coloured.render();
  EXPECT_THAT(frame, HasSubstr("\x1b[31mfailed "));                  // softmax's state
  EXPECT_THAT(frame, HasSubstr("\x1b[31m#13 21:00:13 job_failed"));   // a failure
  EXPECT_THAT(frame, HasSubstr("\x1b[33m#10 21:00:10 runner_restarted")); // recovered
  EXPECT_EQ(coloured.render_line(night.events()[12]).rfind("\x1b[31m#13", 0), 0u);
}

} // namespace
} // namespace warpforge::feed
