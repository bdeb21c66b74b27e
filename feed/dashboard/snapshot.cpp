#include "feed/dashboard/snapshot.hpp"

#include "feed/event_text.hpp"
#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>
#include <vector>

namespace warpforge::dashboard {
namespace {

constexpr const char* not_measured_text = "not measured";

// One problem as the failures panel shows it: the same type and message said again (a CUPTI
// warning on every branch) is one entry with a count, not a panel of copies.
struct repeated_problem {
  const feed::problem* newest = nullptr;
  std::size_t count = 0;
  std::uint64_t first_seq = 0; // its oldest occurrence among those kept
};

std::vector<repeated_problem> repeated_once(const std::deque<feed::problem>& problems) {
  std::vector<repeated_problem> out;
  std::map<std::pair<feed::event_type, std::string_view>, std::size_t> index; // -> out
  for (auto p = problems.rbegin(); p != problems.rend(); ++p) { // newest first
    auto [at, fresh] = index.try_emplace({p->type, std::string_view{p->message}}, out.size());
    if (fresh)
      out.push_back({&*p, 0, p->seq});
    auto& entry = out[at->second];
    ++entry.count;
    entry.first_seq = p->seq;
  }
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.'; }

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
  // them (foundation/vocabulary/number_text.hpp); "not measured" where the figure is null.
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

std::string display_number(double value) {
  char text[48];
  // Whole numbers too long for the digits keep their integer part ("12346", not "1.235e+04").
  if (std::abs(value) >= std::pow(10.0, display_significant_digits) && std::abs(value) < 1e15)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.*g", display_significant_digits, value);
  return text;
}

std::string display_numbers(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    // A decimal number standing alone: [-]digits.digits[e[+-]digits], not part of a word, a
    // version, an address (127.0.0.1) or a file name (kernel-sm_90.cubin).
    const bool starts = is_digit(text[i]) || (text[i] == '-' && i + 1 < text.size() && is_digit(text[i + 1]));
    if (!starts || (i > 0 && is_word(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    std::size_t end = i + (text[i] == '-');
    std::size_t digits = 0;
    while (end < text.size() && is_digit(text[end]))
      ++end, ++digits;
    bool decimal = false;
    if (end + 1 < text.size() && text[end] == '.' && is_digit(text[end + 1])) {
      decimal = true;
      for (++end; end < text.size() && is_digit(text[end]); ++end)
        ++digits;
      if (end + 1 < text.size() && (text[end] == 'e' || text[end] == 'E')) {
        std::size_t exp = end + 1 + (text[end + 1] == '-' || text[end + 1] == '+');
        if (exp < text.size() && is_digit(text[exp])) {
          while (exp < text.size() && is_digit(text[exp]))
            ++exp;
          end = exp;
        }
      }
    }
    const bool alone = end == text.size() || !is_word(text[end]);
    const auto token = text.substr(i, end - i);
    if (decimal && alone && digits > static_cast<std::size_t>(display_significant_digits))
      out += display_number(std::strtod(std::string{token}.c_str(), nullptr));
    else
      out += token;
    i = end;
  }
  return out;
}

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
  const double wall = campaign ? campaign->wall_s(context.now_ts) : until - since; // the shares' base
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
  const auto leased = std::count_if(view.gpus().begin(), view.gpus().end(),
                                  [](const auto& entry) { return entry.second.leased_ts.has_value(); });
  w.key("totals").begin_object();
  w.key("jobs").value(view.jobs().size());
  w.key("running").value(running);
  w.key("finished").value(finished);
  w.key("failed").value(failed);
  w.key("measured").value(measured);
  w.key("branch_failures").value(failures);
  w.key("gpus").value(view.gpus().size());
  w.key("gpus_leased").value(static_cast<std::uint64_t>(leased));
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
    w.key("state").value(gpu.out_of_service ? "out_of_service" : gpu.leased_ts ? "leased" : "idle");
    w.key("job").value(gpu.leased_ts ? gpu.job : std::string{});
    optional_id(w, "iter", gpu.leased_ts ? gpu.iter : feed::no_iter);
    optional_id(w, "branch", gpu.leased_ts ? gpu.branch : feed::no_branch);
    w.key("busy_share").value(gpu.busy_share(wall));                      // kernel time over wall
    w.key("occupied_share").value(gpu.occupied_share(wall, context.now_ts)); // leased over wall
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
    w.key("line").value(display_numbers(feed::event_line(*e)));
    w.key("problem").value(feed::is_problem(e->type));
    w.end_object();
  }
  w.end_array();

  w.key("problems").begin_array();
  for (const auto& p : repeated_once(view.problems())) { // newest first, a repeat counted
    w.begin_object();
    w.key("seq").value(p.newest->seq);
    w.key("ts").value(p.newest->ts);
    w.key("type").value(feed::to_string(p.newest->type));
    w.key("place").value(p.newest->place);
    w.key("message").value(display_numbers(p.newest->message));
    w.key("warning").value(feed::is_warning(p.newest->type));
    w.key("count").value(static_cast<std::uint64_t>(p.count));
    w.key("first_seq").value(p.first_seq);
    w.end_object();
  }
  w.end_array();
  w.key("problems_seen").value(view.problems_seen());
  w.end_object();
  return std::move(w).str();
}

} // namespace warpforge::dashboard
