#include "dashboard/snapshot.hpp"

#include "feed/event_text.hpp"
#include "json/writer.hpp"
#include "vocabulary/number_text.hpp"

#include <algorithm>

namespace warpforge::dashboard {
namespace {

constexpr const char* not_measured_text = "not measured";

void optional_number(json::writer& w, std::string_view key, std::optional<double> value) {
  w.key(key);
  value ? w.value(*value) : w.null();
}

void optional_id(json::writer& w, std::string_view key, std::int64_t value) {
  w.key(key);
  value < 0 ? w.null() : w.value(value);
}

void write_roofline(json::writer& w, const feed::roofline_position& r) {
  w.begin_object();
  optional_id(w, "iteration", r.iteration);
  optional_number(w, "arithmetic_intensity", r.arithmetic_intensity);
  optional_number(w, "achieved_flops", r.achieved_flops);
  optional_number(w, "peak_flops", r.peak_flops);
  optional_number(w, "achieved_bandwidth", r.achieved_bandwidth);
  optional_number(w, "peak_bandwidth", r.peak_bandwidth);
  optional_number(w, "dram_fraction", r.dram_fraction());
  optional_number(w, "compute_gap", r.compute_gap);
  optional_number(w, "memory_gap", r.memory_gap);
  optional_number(w, "latency_gap", r.latency_gap);
  w.key("near_peak").value(r.near_peak);
  w.end_object();
}

// Why a job's times are null: its failure, else the campaign's reason (e.g. no GPU here), else
// how far it got. Empty when the baseline, the best time and the speed-up are all there.
std::string job_not_measured_reason(const feed::job_progress& job, const feed::campaign_status* campaign) {
  const bool speedup = job.champion_speedup() || job.best_speedup;
  if (job.baseline_time_s && job.best_time_s && speedup)
    return "";
  if (!job.failure.empty())
    return job.failure;
  if (campaign && !campaign->reason.empty())
    return campaign->reason;
  return job.state == feed::run_state::running ? "not measured yet" : "no measurement recorded";
}

void write_job(json::writer& w, const feed::job_progress& job, const feed::campaign_status* campaign) {
  w.begin_object();
  w.key("name").value(job.name);
  w.key("state").value(feed::to_string(job.state));
  optional_id(w, "iteration", job.iteration);
  w.key("proposed").value(job.branches_proposed);
  w.key("measured").value(job.branches_measured);
  w.key("failed").value(job.branches_failed);
  optional_number(w, "baseline_s", job.baseline_time_s);
  optional_number(w, "best_measured_s", job.best_time_s);
  optional_number(w, "champion_s", job.champion_time_s);
  // The speed-up the campaign reports (baseline over its champion), else the best measured.
  optional_number(w, "speedup", job.champion_speedup() ? job.champion_speedup() : job.best_speedup);
  // Beside the nulls above: why they are null (null when every figure is there).
  w.key("not_measured_reason");
  const auto why = job_not_measured_reason(job, campaign);
  why.empty() ? w.null() : w.value(why);
  // The figures above as people read them, the same as `warpforge status` and the report write
  // them (vocabulary/number_text.hpp); "not measured" where the figure is null.
  const auto speedup = job.champion_speedup() ? job.champion_speedup() : job.best_speedup;
  const auto time = [](std::optional<double> s) { return s ? vocabulary::time_text(*s) : not_measured_text; };
  w.key("display").begin_object();
  w.key("baseline").value(time(job.baseline_time_s));
  w.key("best_measured").value(time(job.best_time_s));
  w.key("champion").value(time(job.champion_time_s));
  w.key("speedup").value(speedup ? vocabulary::speedup_text(*speedup) : not_measured_text);
  w.end_object();
  w.key("stop").value(job.stop);
  w.key("failure").value(job.failure);
  w.key("iterations").begin_array();
  for (const auto& point : job.iterations) {
    w.begin_object();
    w.key("iteration").value(point.iteration);
    w.key("best_s").value(point.best_s);
    optional_number(w, "speedup", point.speedup);
    w.key("champion").value(point.champion);
    w.end_object();
  }
  w.end_array();
  w.key("roofline");
  if (job.roofline)
    write_roofline(w, *job.roofline);
  else
    w.null();
  w.end_object();
}

} // namespace

std::string snapshot_json(const feed::campaign_view& view, const snapshot_context& context) {
  json::writer w;
  w.begin_object();
  w.key("snapshot").value(snapshot_version);
  w.key("now").value(context.now_ts);
  w.key("source").value(context.source);
  w.key("feed").begin_object();
  w.key("endpoint").value(context.feed_endpoint);
  w.key("replay_endpoint").value(context.replay_endpoint);
  w.key("health").value(context.feed_health);
  optional_number(w, "silent_s", context.silent_s);
  w.key("missed").value(context.missed);
  w.key("dropped").value(view.feed_dropped());
  w.end_object();
  w.key("last_seq");
  view.last_seq() ? w.value(*view.last_seq()) : w.null();

  const auto* campaign = view.campaigns().empty() ? nullptr : &view.campaigns().back();
  const double since = campaign ? campaign->started_ts : view.first_ts().value_or(context.now_ts);
  const double until = campaign && campaign->ended_ts ? *campaign->ended_ts : context.now_ts;
  w.key("campaign");
  if (campaign) {
    w.begin_object();
    w.key("name").value(campaign->name);
    w.key("state").value(feed::to_string(campaign->state));
    w.key("started_ts").value(campaign->started_ts);
    optional_number(w, "ended_ts", campaign->ended_ts);
    w.key("elapsed_s").value(until - since);
    optional_number(w, "wall_budget_s", campaign->wall_budget_s);
    w.key("reason").value(campaign->reason);
    w.end_object();
  } else {
    w.null();
  }

  std::uint64_t measured = 0;
  std::uint64_t failures = 0;
  std::size_t running = 0;
  std::size_t finished = 0;
  std::size_t failed = 0;
  for (const auto& job : view.jobs()) {
    measured += job.branches_measured;
    failures += job.branches_failed;
    running += job.state == feed::run_state::running;
    finished += job.state == feed::run_state::finished;
    failed += job.state == feed::run_state::failed;
  }
  const auto busy = std::count_if(view.gpus().begin(), view.gpus().end(),
                                  [](const auto& entry) { return entry.second.leased_ts.has_value(); });
  w.key("totals").begin_object();
  w.key("jobs").value(view.jobs().size());
  w.key("running").value(running);
  w.key("finished").value(finished);
  w.key("failed").value(failed);
  w.key("measured").value(measured);
  w.key("branch_failures").value(failures);
  w.key("gpus").value(view.gpus().size());
  w.key("gpus_busy").value(static_cast<std::uint64_t>(busy));
  w.end_object();

  w.key("jobs").begin_array();
  for (const auto& job : view.jobs())
    write_job(w, job, campaign);
  w.end_array();

  w.key("gpus").begin_array();
  for (const auto& [index, gpu] : view.gpus()) {
    w.begin_object();
    w.key("index").value(index);
    w.key("name").value(gpu.name);
    w.key("state").value(gpu.out_of_service ? "out_of_service" : gpu.leased_ts ? "busy" : "idle");
    w.key("job").value(gpu.leased_ts ? gpu.job : std::string{});
    optional_id(w, "iter", gpu.leased_ts ? gpu.iter : feed::no_iter);
    optional_id(w, "branch", gpu.leased_ts ? gpu.branch : feed::no_branch);
    w.key("busy_share").value(gpu.busy_share(since, until));
    w.key("leases").value(gpu.leases);
    w.key("last_event").value(feed::to_string(gpu.last));
    w.key("summary").value(gpu.summary);
    w.end_object();
  }
  w.end_array();

  w.key("recent").begin_array();
  for (auto e = view.recent().rbegin(); e != view.recent().rend(); ++e) { // newest first
    w.begin_object();
    w.key("seq").value(e->seq);
    w.key("ts").value(e->ts);
    w.key("type").value(feed::to_string(e->type));
    w.key("line").value(feed::event_line(*e));
    w.key("problem").value(feed::is_problem(e->type));
    w.end_object();
  }
  w.end_array();

  w.key("problems").begin_array();
  for (auto p = view.problems().rbegin(); p != view.problems().rend(); ++p) { // newest first
    w.begin_object();
    w.key("seq").value(p->seq);
    w.key("ts").value(p->ts);
    w.key("type").value(feed::to_string(p->type));
    w.key("place").value(p->place);
    w.key("message").value(p->message);
    w.key("warning").value(feed::is_warning(p->type));
    w.end_object();
  }
  w.end_array();
  w.key("problems_seen").value(view.problems_seen());
  w.end_object();
  return std::move(w).str();
}

} // namespace warpforge::dashboard
