#include "report/campaign_report.hpp"

#include "report/stored_run.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

namespace warpforge::report {

namespace {

// Reads the keys of iterations.gaps_json that the report shows; others are ignored.
iteration_gaps parse_gaps(const std::optional<std::string>& text) {
  iteration_gaps gaps;
  if (!text || text->empty())
    return gaps;
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(*text).get(object) != simdjson::SUCCESS)
    return gaps;
  auto number = [&](const char* key, std::optional<double>& out) {
    double value = 0;
    if (object.at_key(key).get_double().get(value) == simdjson::SUCCESS && std::isfinite(value))
      out = value;
  };
  number("compute", gaps.compute);
  number("memory", gaps.memory);
  number("latency", gaps.latency);
  number("arithmetic_intensity", gaps.arithmetic_intensity);
  number("achieved_flops", gaps.achieved_flops);
  number("achieved_bandwidth", gaps.achieved_bandwidth);
  number("peak_flops", gaps.peak_flops);
  number("peak_bandwidth", gaps.peak_bandwidth);
  number("peak_fraction", gaps.peak_fraction);
  number("flop", gaps.flop);
  number("dram_bytes", gaps.dram_bytes);
  number("duration", gaps.duration);
  auto word = [&](const char* key, std::string& out) {
    std::string_view value;
    if (object.at_key(key).get_string().get(value) == simdjson::SUCCESS)
      out = std::string{value};
  };
  word("binding_axis", gaps.binding_axis);
  word("precision", gaps.precision);
  word("binding_kind", gaps.binding_kind);
  word("binding_headline", gaps.binding_headline);
  bool near = false;
  if (object.at_key("near_peak").get_bool().get(near) == simdjson::SUCCESS)
    gaps.near_peak = near;
  return gaps;
}

std::vector<std::string> parse_methods(const std::string& text) {
  std::vector<std::string> methods;
  simdjson::dom::parser parser;
  simdjson::dom::array array;
  if (parser.parse(text).get(array) != simdjson::SUCCESS)
    return methods;
  for (auto element : array) {
    std::string_view method;
    if (element.get(method) == simdjson::SUCCESS)
      methods.emplace_back(method);
  }
  return methods;
}

// Ablation branches name the one method they leave out (methods_json = [m]); their parent is the
// champion. A detail starting "implementation_failed" records a method SASS showed absent.
std::vector<method_verdict> verdicts_of(const job_entry& job, double noise_threshold) {
  std::vector<method_verdict> verdicts;
  for (const auto& iteration : job.iterations) {
    for (const auto& b : iteration.branches) {
      if (b.row.kind != vocabulary::branch_kind::ablation)
        continue;
      method_verdict v;
      v.method = b.methods.empty() ? "?" : b.methods.front();
      v.iteration = iteration.row.number;
      const branch_entry* parent = nullptr;
      for (const auto& candidate : iteration.branches)
        if (b.row.parent_branch_id && candidate.row.id == *b.row.parent_branch_id)
          parent = &candidate;
      if (b.row.detail.rfind("implementation_failed", 0) == 0)
        v.verdict = "implementation_failed";
      else if (!b.best_time_s || !parent || !parent->best_time_s)
        v.verdict = "not_measured";
      else {
        v.attribution_s = *b.best_time_s - *parent->best_time_s;
        v.verdict = *v.attribution_s > noise_threshold * *parent->best_time_s ? "effective" : "ineffective";
      }
      verdicts.push_back(std::move(v));
    }
  }
  return verdicts;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Why a branch has no time: its outcome and the first line of what it recorded.
std::string branch_not_measured(const storage::branch_row& row) {
  if (!row.outcome)
    return "pending: not measured yet";
  const std::string outcome{vocabulary::to_string(*row.outcome)};
  const auto detail = first_line(row.detail);
  return detail.empty() ? outcome : outcome + ": " + detail;
}

void explain_iteration(iteration_entry& iteration) {
  if (!iteration.champion_time_s) {
    const branch_entry* champion = nullptr;
    for (const auto& b : iteration.branches)
      if (iteration.row.champion_branch_id && b.row.id == *iteration.row.champion_branch_id)
        champion = &b;
    if (champion)
      iteration.champion_not_measured = champion->time_not_measured;
    else if (iteration.branches.empty())
      iteration.champion_not_measured = "no branch recorded";
    else if (const auto& first = iteration.branches.front(); !first.best_time_s)
      iteration.champion_not_measured = "no champion; branch " + std::to_string(first.row.ordinal) + " " +
                                        first.time_not_measured;
    else
      iteration.champion_not_measured = "no champion elected";
  }
  const auto& g = iteration.gaps;
  if (!g.compute && !g.memory && !g.latency)
    iteration.gaps_not_measured = "no profile recorded";
}

// Why each of the job's headline figures is absent. A job's own reason says it best (it failed
// and why), else the campaign's (e.g. no GPU here), else how far the job got.
job_not_measured explain_job(const storage::campaign_row& campaign, const job_entry& job) {
  const std::string why = job_not_measured_reason(campaign, job.row);
  job_not_measured out;
  if (!job.row.baseline_time_s)
    out.baseline_time_s = why;
  if (!job.row.best_time_s)
    out.best_time_s = why;
  if (!job.speedup)
    out.speedup = !job.row.baseline_time_s || !job.row.best_time_s ? why : "the best time is 0";
  if (!job.peak_fraction)
    out.peak_fraction = !job.row.best_time_s ? why : "no profile with a rate and a peak recorded";
  return out;
}

} // namespace

std::string job_not_measured_reason(const storage::campaign_row& campaign, const storage::job_row& job) {
  if (!job.reason.empty())
    return job.reason;
  if (!campaign.reason.empty())
    return campaign.reason;
  return job.state == vocabulary::job_state::pending || job.state == vocabulary::job_state::running
           ? "not measured yet"
           : "no measurement recorded";
}

expected<campaign_report, storage::store_error> load_report(const std::filesystem::path& run_dir) {
  auto run = open_stored_run(run_dir);
  if (!run)
    return unexpected{run.error()};
  auto& db = run->db;
  campaign_report report;
  report.run_dir = run->dir.path();
  report.campaign = run->summary.campaign;
  for (const auto& job_row : run->summary.jobs) {
    job_entry job;
    job.row = job_row;
    auto iterations = db.load_iterations(job_row.id);
    if (!iterations)
      return unexpected{iterations.error()};
    for (const auto& iteration_row : *iterations) {
      iteration_entry iteration;
      iteration.row = iteration_row;
      iteration.gaps = parse_gaps(iteration_row.gaps_json);
      auto branches = db.load_branches(iteration_row.id);
      if (!branches)
        return unexpected{branches.error()};
      for (const auto& branch_row : *branches) {
        branch_entry branch;
        branch.row = branch_row;
        branch.methods = parse_methods(branch_row.methods_json);
        auto measurements = db.load_measurements(branch_row.id);
        if (!measurements)
          return unexpected{measurements.error()};
        branch.measurements = std::move(*measurements);
        for (const auto& m : branch.measurements)
          if (!branch.best_time_s || m.median_s < *branch.best_time_s)
            branch.best_time_s = m.median_s;
        if (!branch.best_time_s)
          branch.time_not_measured = branch_not_measured(branch_row);
        if (iteration_row.champion_branch_id && *iteration_row.champion_branch_id == branch_row.id)
          iteration.champion_time_s = branch.best_time_s;
        iteration.branches.push_back(std::move(branch));
      }
      explain_iteration(iteration);
      job.iterations.push_back(std::move(iteration));
    }
    if (job_row.baseline_time_s && job_row.best_time_s && *job_row.best_time_s > 0)
      job.speedup = *job_row.baseline_time_s / *job_row.best_time_s;
    job.peak = peak_fraction_of(job);
    if (job.peak)
      job.peak_fraction = job.peak->value;
    job.not_measured = explain_job(report.campaign, job);
    job.methods = verdicts_of(job, report.noise_threshold);
    auto calls = db.load_llm_calls(job_row.id);
    if (!calls)
      return unexpected{calls.error()};
    job.llm = llm_usage_of(*calls);
    report.llm.add(job.llm);
    report.jobs.push_back(std::move(job));
  }
  // The throughput from the events (docs/report.md, "Throughput"), read a page at a time.
  constexpr std::int64_t page = 10000;
  std::vector<storage::event_row> events;
  for (std::int64_t after = 0;;) {
    auto more = db.events_since(after, page);
    if (!more)
      return unexpected{more.error()};
    if (more->empty())
      break;
    after = more->back().seq;
    events.insert(events.end(), std::make_move_iterator(more->begin()), std::make_move_iterator(more->end()));
  }
  report.throughput = throughput_from_events(events);
  return report;
}

} // namespace warpforge::report
