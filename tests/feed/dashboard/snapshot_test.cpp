#include "feed/dashboard/snapshot.hpp"

#include "tests/feed/campaign_events.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

namespace warpforge::dashboard {
namespace {

constexpr double start_ts = feed::testing::campaign_start_ts;
using feed::testing::campaign_event;

/// transpose at 2x after iteration 1, diagnosed; a runner restart on GPU 1; GPU 0 measuring.
feed::campaign_view night() {
  using feed::detail;
  using feed::event_type;
  feed::campaign_view view;
  std::uint64_t seq = 0;
  for (auto e : {campaign_event(++seq, event_type::campaign_started, {}, feed::no_iter, feed::no_branch, feed::no_gpu,
                      detail{}.add("wall_time_s", 600.0).json()),
                 campaign_event(++seq, event_type::job_started, "transpose"),
                 campaign_event(++seq, event_type::branch_proposed, "transpose", 1, 0, feed::no_gpu,
                      detail{}.add("kind", "baseline").json()),
                 campaign_event(++seq, event_type::branch_measured, "transpose", 1, 0, 0,
                      detail{}.add("gpu_name", "NVIDIA H100").add("time_s", 4e-3).json()),
                 campaign_event(++seq, event_type::iteration_finished, "transpose", 1, feed::no_branch, feed::no_gpu,
                      detail{}.add("champion", true).add("best_s", 2e-3).json()),
                 campaign_event(++seq, event_type::diagnosis_ready, "transpose", 1, 1, 0,
                      detail{}.add("memory", 0.2).add("achieved_bandwidth", 2.0e12).add("peak_bandwidth", 4.0e12).json()),
                 campaign_event(++seq, event_type::runner_restarted, {}, feed::no_iter, feed::no_branch, 1,
                      detail{}.add("reason", "watchdog").json()),
                 campaign_event(++seq, event_type::gpu_leased, "transpose", 2, 3, 0)})
    view.apply(e);
  return view;
}

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& text) {
  auto doc = parser.parse(text);
  if (doc.error())
    throw std::runtime_error("not JSON: " + text);
  return doc.value();
}

TEST(Snapshot, CarriesTheCampaignItsJobsSpeedUpsRooflineAndGpus) {
  snapshot_context context;
  context.now_ts = start_ts + 11;
  context.source = "feed";
  context.feed_endpoint = "tcp://127.0.0.1:5757";
  context.feed_health = "live";
  context.silent_s = 0.25;
  const auto text = snapshot_json(night(), context);
  simdjson::dom::parser parser;
  auto s = parse(parser, text);
  EXPECT_EQ(s["snapshot"].get_int64().value(), snapshot_version);
  EXPECT_EQ(s["last_seq"].get_int64().value(), 8);
  EXPECT_EQ(std::string_view{s["feed"]["health"].get_string().value()}, "live");
  EXPECT_EQ(std::string_view{s["campaign"]["state"].get_string().value()}, "running");
  EXPECT_DOUBLE_EQ(s["campaign"]["elapsed_s"].get_double().value(), 10.0);
  EXPECT_DOUBLE_EQ(s["campaign"]["wall_budget_s"].get_double().value(), 600.0);

  auto job = s["jobs"].at(0);
  EXPECT_EQ(std::string_view{job["name"].get_string().value()}, "transpose");
  EXPECT_DOUBLE_EQ(job["speedup"].get_double().value(), 2.0);
  EXPECT_DOUBLE_EQ(job["baseline_s"].get_double().value(), 4e-3);
  EXPECT_EQ(job["iterations"].get_array().value().size(), 1u);
  EXPECT_DOUBLE_EQ(job["iterations"].at(0)["speedup"].get_double().value(), 2.0);
  EXPECT_DOUBLE_EQ(job["roofline"]["dram_fraction"].get_double().value(), 0.5);
  EXPECT_TRUE(job["roofline"]["peak_flops"].is_null()) << "not sent, not invented";

  auto gpus = s["gpus"].get_array().value();
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(std::string_view{gpus.at(0)["state"].get_string().value()}, "leased");
  EXPECT_EQ(std::string_view{gpus.at(0)["name"].get_string().value()}, "NVIDIA H100");
  EXPECT_EQ(gpus.at(0)["branch"].get_int64().value(), 3);
  EXPECT_DOUBLE_EQ(gpus.at(0)["occupied_share"].get_double().value(), 0.3) << "leased at +8 until +11 of 10 s";
  EXPECT_DOUBLE_EQ(gpus.at(0)["busy_share"].get_double().value(), 0.0) << "no kernel time released yet";
  EXPECT_EQ(std::string_view{gpus.at(1)["state"].get_string().value()}, "idle");
  EXPECT_EQ(s["totals"]["gpus_leased"].get_int64().value(), 1);

  auto recent = s["recent"].get_array().value();
  EXPECT_EQ(recent.at(0)["seq"].get_int64().value(), 8) << "newest first";
  auto problems = s["problems"].get_array().value();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(std::string_view{problems.at(0)["type"].get_string().value()}, "runner_restarted");
  EXPECT_TRUE(problems.at(0)["warning"].get_bool().value());
}

TEST(Snapshot, BeforeAnyEventTheCampaignIsNullAndEverythingIsEmpty) {
  simdjson::dom::parser parser;
  auto s = parse(parser, snapshot_json(feed::campaign_view{}, snapshot_context{}));
  EXPECT_TRUE(s["campaign"].is_null());
  EXPECT_TRUE(s["last_seq"].is_null());
  EXPECT_EQ(s["jobs"].get_array().value().size(), 0u);
  EXPECT_TRUE(s["feed"]["silent_s"].is_null());
}

TEST(Snapshot, CampaignTextIsEscaped) {
  feed::campaign_view view;
  view.apply(campaign_event(1, feed::event_type::job_failed, "a\"b</script>", feed::no_iter, feed::no_branch, feed::no_gpu,
                  feed::detail{}.add("reason", "line\nbreak").json()));
  simdjson::dom::parser parser;
  auto s = parse(parser, snapshot_json(view, snapshot_context{}));
  EXPECT_EQ(std::string_view{s["jobs"].at(0)["name"].get_string().value()}, "a\"b</script>");
  EXPECT_EQ(std::string_view{s["jobs"].at(0)["failure"].get_string().value()}, "line\nbreak");
}

TEST(Snapshot, AJobThatMeasuredNothingHasNullFiguresAndTheReasonBesideThem) {
  using feed::detail;
  using feed::event_type;
  feed::campaign_view view;
  const std::string no_gpu = "no GPU here: every job's baseline and first proposal were compiled and checked";
  view.apply(campaign_event(1, event_type::campaign_started));
  view.apply(campaign_event(2, event_type::job_started, "a"));
  view.apply(campaign_event(3, event_type::job_started, "b"));
  view.apply(campaign_event(4, event_type::job_failed, "a", feed::no_iter, feed::no_branch, feed::no_gpu,
                            detail{}.add("reason", "the baseline: not_run: measurements need a GPU").json()));
  view.apply(campaign_event(5, event_type::campaign_failed, {}, feed::no_iter, feed::no_branch, feed::no_gpu,
                            detail{}.add("reason", no_gpu).json()));
  snapshot_context context;
  context.now_ts = start_ts + 6;
  simdjson::dom::parser parser;
  auto s = parse(parser, snapshot_json(view, context));
  auto a = s["jobs"].at(0);
  for (const char* key : {"baseline_s", "best_measured_s", "champion_s", "speedup"})
    EXPECT_TRUE(a[key].is_null()) << key;
  EXPECT_EQ(std::string_view{a["not_measured_reason"].get_string().value()},
            "the baseline: not_run: measurements need a GPU") << "the job's own failure first";
  EXPECT_EQ(std::string_view{s["jobs"].at(1)["not_measured_reason"].get_string().value()}, no_gpu)
    << "else the campaign's reason";
}

TEST(Snapshot, AMeasuredJobHasNoNotMeasuredReason) {
  simdjson::dom::parser parser;
  snapshot_context context;
  context.now_ts = start_ts + 11;
  auto s = parse(parser, snapshot_json(night(), context));
  EXPECT_TRUE(s["jobs"].at(0)["not_measured_reason"].is_null()) << "baseline, best and speed-up are all there";
}

TEST(Snapshot, AWarningSaidOnEveryBranchIsOneProblemWithItsCount) {
  using feed::detail;
  using feed::event_type;
  feed::campaign_view view;
  std::uint64_t seq = 0;
  view.apply(campaign_event(++seq, event_type::campaign_started));
  const auto cupti = detail{}.add("message", "CUPTI: counters unavailable (profiling restricted to admin)").json();
  for (std::int64_t branch = 0; branch < 6; ++branch)
    view.apply(campaign_event(++seq, event_type::warning, "transpose", 1, branch, 0, cupti));
  view.apply(campaign_event(++seq, event_type::runner_restarted, {}, feed::no_iter, feed::no_branch, 1,
                            detail{}.add("reason", "watchdog").json()));
  simdjson::dom::parser parser;
  auto s = parse(parser, snapshot_json(view, {}));
  auto problems = s["problems"].get_array().value();
  ASSERT_EQ(problems.size(), 2u) << simdjson::minify(s["problems"]);
  EXPECT_EQ(std::string_view{problems.at(0)["type"].get_string().value()}, "runner_restarted");
  EXPECT_EQ(problems.at(0)["count"].get_int64().value(), 1);
  auto warning = problems.at(1);
  EXPECT_EQ(std::string_view{warning["type"].get_string().value()}, "warning");
  EXPECT_EQ(warning["count"].get_int64().value(), 6);
  EXPECT_EQ(warning["seq"].get_int64().value(), 7) << "the newest occurrence";
  EXPECT_EQ(warning["first_seq"].get_int64().value(), 2) << "the oldest";
}

TEST(Snapshot, FloatsInEventLinesAreShownWithFourSignificantDigits) {
  EXPECT_EQ(display_numbers("cv=0.0011397195372841694"), "cv=0.00114");
  EXPECT_EQ(display_numbers("time_s=1.2345678e-05 rounds=12"), "time_s=1.235e-05 rounds=12");
  EXPECT_EQ(display_numbers("duration_s=12345.678"), "duration_s=12346");
  EXPECT_EQ(display_numbers("speed-up -2.71828 x"), "speed-up -2.718 x");
  // Short decimals, integers, addresses, versions and names are left alone.
  for (std::string_view kept : {"cv=0.25", "#46 09:16:00", "tcp://127.0.0.1:5757", "CUDA 12.8.1",
                                "kernel-sm_90.cubin", "v1.23456", "seq 1234567"})
    EXPECT_EQ(display_numbers(kept), kept);

  feed::campaign_view view;
  view.apply(campaign_event(1, feed::event_type::branch_measured, "transpose", 1, 0, 0,
                            feed::detail{}.add("time_s", 7.7601234e-4).add("cv", 0.0011397195372841694).json()));
  simdjson::dom::parser parser;
  auto s = parse(parser, snapshot_json(view, {}));
  const std::string_view line = s["recent"].at(0)["line"].get_string().value();
  EXPECT_NE(line.find("cv=0.00114"), std::string_view::npos) << line;
  EXPECT_NE(line.find("time_s=0.000776 "), std::string_view::npos) << line;
  EXPECT_EQ(line.find("0.0011397195"), std::string_view::npos) << line;
}

} // namespace
} // namespace warpforge::dashboard
