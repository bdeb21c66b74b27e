#include "feed/campaign_view.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>

namespace warpforge::feed {
namespace {

/// Events whose time_s / speedup describe a result of the job (ablations do not: they are slower
/// on purpose).
bool carries_result(event_type type) {
  return type == event_type::branch_measured || type == event_type::champion_elected ||
         type == event_type::iteration_finished || type == event_type::job_finished;
}

/// What a GPU's latest event says in a few words.
std::string gpu_summary(event_type type, const detail_members& detail) {
  switch (type) {
    case event_type::branch_measured:
    case event_type::ablation_measured:
    case event_type::champion_elected:
      if (auto time_s = number_of(detail, "time_s"))
        return format_seconds(*time_s);
      return {};
    case event_type::branch_failed:
      return text_of(detail, "outcome").value_or(text_of(detail, "reason").value_or(""));
    case event_type::runner_restarted:
    case event_type::runner_failed:
    case event_type::error:
    case event_type::warning: return problem_message(detail);
    default: return {};
  }
}

/// A positive time from the detail; producers send 0 for "none yet".
std::optional<double> positive(const detail_members& detail, std::string_view key) {
  auto value = number_of(detail, key);
  return value && *value > 0.0 ? value : std::nullopt;
}

/// The roofline numbers an event carries, if it carries any.
std::optional<roofline_position> roofline_of(const event& e, const detail_members& detail) {
  roofline_position position;
  position.iteration = e.iter;
  position.arithmetic_intensity = number_of(detail, "arithmetic_intensity");
  position.achieved_flops = number_of(detail, "achieved_flops");
  position.peak_flops = number_of(detail, "peak_flops");
  position.achieved_bandwidth = number_of(detail, "achieved_bandwidth");
  position.peak_bandwidth = number_of(detail, "peak_bandwidth");
  position.compute_gap = number_of(detail, "compute");
  position.memory_gap = number_of(detail, "memory");
  position.latency_gap = number_of(detail, "latency");
  position.near_peak = text_of(detail, "near_peak").value_or("false") == "true";
  const bool any = position.arithmetic_intensity || position.achieved_flops ||
                   position.achieved_bandwidth || position.compute_gap || position.memory_gap ||
                   position.latency_gap;
  if (!any)
    return std::nullopt;
  return position;
}

/// One llm_call event's share of the job's language-model spend.
void add_llm_call(job_progress& job, const detail_members& detail) {
  ++job.llm_calls;
  if (text_of(detail, "outcome").value_or("ok") != "ok")
    ++job.llm_failed_calls;
  for (auto key : {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"})
    job.llm_tokens += static_cast<std::int64_t>(number_of(detail, key).value_or(0.0));
  job.llm_cost_usd += number_of(detail, "cost_usd").value_or(0.0);
}

} // namespace

constexpr vocabulary::enum_word<run_state> run_state_words[] = {
    {run_state::running, "running"},
    {run_state::finished, "finished"},
    {run_state::failed, "failed"},
    {run_state::interrupted, "interrupted"},
};
static_assert(vocabulary::covers(run_state_words, all_run_states));

std::string_view to_string(run_state state) { return vocabulary::word_of(run_state_words, state); }

std::optional<run_state> run_state_from_string(std::string_view text) {
  return vocabulary::value_of(run_state_words, text);
}

std::optional<double> roofline_position::dram_fraction() const {
  if (!achieved_bandwidth || !peak_bandwidth || *peak_bandwidth <= 0.0)
    return std::nullopt;
  return *achieved_bandwidth / *peak_bandwidth;
}

std::optional<double> job_progress::champion_speedup() const {
  if (!baseline_time_s || !champion_time_s || *champion_time_s <= 0.0)
    return std::nullopt;
  return *baseline_time_s / *champion_time_s;
}

double campaign_status::wall_s(double now_ts) const {
  if (run_started_ts)
    return ended_runs_s + std::max(0.0, now_ts - *run_started_ts);
  if (ended_runs_s > 0.0 || ended_ts)
    return ended_runs_s;
  return std::max(0.0, now_ts - started_ts); // joined mid-run: from the first event seen
}

double gpu_activity::occupied_share(double wall_s, double now_ts) const {
  if (wall_s <= 0.0)
    return 0.0;
  const double open = leased_ts ? std::max(0.0, now_ts - *leased_ts) : 0.0;
  return std::clamp((occupied_s + open) / wall_s, 0.0, 1.0);
}

double gpu_activity::busy_share(double wall_s) const {
  return wall_s <= 0.0 ? 0.0 : std::clamp(kernel_s / wall_s, 0.0, 1.0);
}

campaign_view::campaign_view(campaign_view_options options) : options_(options) {}

campaign_status& campaign_view::campaign_for(const event& e) {
  auto found = std::find_if(campaigns_.begin(), campaigns_.end(),
                            [&](const campaign_status& c) { return c.name == e.campaign; });
  if (found != campaigns_.end())
    return *found;
  campaign_status status;
  status.name = e.campaign;
  status.started_ts = e.ts;
  status.last_ts = e.ts;
  campaigns_.push_back(std::move(status));
  return campaigns_.back();
}

job_progress& campaign_view::job_for(const event& e) {
  auto found = std::find_if(jobs_.begin(), jobs_.end(), [&](const job_progress& j) {
    return j.campaign == e.campaign && j.name == e.job;
  });
  if (found != jobs_.end())
    return *found;
  job_progress job;
  job.campaign = e.campaign;
  job.name = e.job;
  jobs_.push_back(std::move(job));
  return jobs_.back();
}

void campaign_view::apply_to_job(job_progress& job, const event& e, const detail_members& detail) {
  switch (e.type) {
    case event_type::job_started:
      job.state = run_state::running;
      if (auto baseline = positive(detail, "baseline_time_s"))
        job.baseline_time_s = baseline;
      break;
    case event_type::job_finished:
      job.state = run_state::finished;
      job.stop = text_of(detail, "stop").value_or("");
      if (auto baseline = positive(detail, "baseline_s"))
        job.baseline_time_s = baseline;
      if (auto best = positive(detail, "best_s"))
        job.champion_time_s = best;
      break;
    case event_type::job_failed:
      job.state = run_state::failed;
      job.failure = text_of(detail, "reason").value_or("");
      break;
    case event_type::branch_proposed:
      ++job.branches_proposed;
      if (text_of(detail, "kind") == "baseline") {
        job.baseline_iter = e.iter;
        job.baseline_branch = e.branch;
      }
      break;
    case event_type::ablation_measured: ++job.branches_measured; break; // a candidate measured too
    case event_type::branch_measured:
      ++job.branches_measured;
      if (!job.baseline_time_s && e.iter == job.baseline_iter && e.branch == job.baseline_branch &&
          job.baseline_branch != no_branch)
        job.baseline_time_s = positive(detail, "time_s");
      break;
    case event_type::branch_failed: // on a GPU (it names one): a candidate measured that failed there
      ++job.branches_failed;
      job.branches_measured += e.gpu != no_gpu;
      break;
    case event_type::llm_call: add_llm_call(job, detail); break;
    case event_type::champion_elected:
      if (auto time_s = positive(detail, "time_s"))
        job.champion_time_s = time_s;
      break;
    case event_type::iteration_finished:
      if (auto best = positive(detail, "best_s")) {
        job.champion_time_s = best;
        iteration_point point;
        point.iteration = e.iter;
        point.best_s = *best;
        point.champion = text_of(detail, "champion").value_or("false") == "true";
        if (job.baseline_time_s)
          point.speedup = *job.baseline_time_s / *best;
        // A resumed campaign may finish an iteration it had started: the later word counts.
        std::erase_if(job.iterations, [&](const iteration_point& p) { return p.iteration == e.iter; });
        job.iterations.push_back(point);
      }
      break;
    default: break;
  }
  if (e.type == event_type::diagnosis_ready || e.type == event_type::iteration_finished)
    if (auto position = roofline_of(e, detail))
      job.roofline = std::move(position);
  if (e.iter >= 0)
    job.iteration = std::max(job.iteration, e.iter);
  if (carries_result(e.type)) {
    auto time_s = number_of(detail, "time_s");
    if (time_s && (!job.best_time_s || *time_s < *job.best_time_s))
      job.best_time_s = time_s;
    auto speedup = number_of(detail, "speedup");
    if (speedup && (!job.best_speedup || *speedup > *job.best_speedup))
      job.best_speedup = speedup;
  }
  // The baseline may become known after the fastest measurement (or the reverse).
  if (job.best_time_s && job.baseline_time_s && *job.best_time_s > 0.0) {
    const double measured = *job.baseline_time_s / *job.best_time_s;
    if (!job.best_speedup || measured > *job.best_speedup)
      job.best_speedup = measured;
  }
}

void campaign_view::apply_to_gpu(gpu_activity& gpu, const event& e, const detail_members& detail) {
  gpu.gpu = e.gpu;
  gpu.idle = e.type == event_type::gpu_released;
  gpu.job = gpu.idle ? std::string{} : e.job;
  gpu.iter = gpu.idle ? no_iter : e.iter;
  gpu.branch = gpu.idle ? no_branch : e.branch;
  gpu.last = e.type;
  gpu.summary = gpu_summary(e.type, detail);
  gpu.since_ts = e.ts;
  if (auto name = text_of(detail, "gpu_name"); name && !name->empty())
    gpu.name = *name;
  switch (e.type) {
    case event_type::gpu_leased:
      if (gpu.leased_ts) // a lease never released (an event lost for good): close it here
        gpu.occupied_s += std::max(0.0, e.ts - *gpu.leased_ts);
      gpu.leased_ts = e.ts;
      ++gpu.leases;
      break;
    case event_type::gpu_released:
      if (gpu.leased_ts)
        gpu.occupied_s += std::max(0.0, e.ts - *gpu.leased_ts);
      gpu.leased_ts.reset();
      if (auto kernel = number_of(detail, "kernel_s"); kernel && *kernel > 0.0)
        gpu.kernel_s += *kernel;
      break;
    case event_type::runner_failed: gpu.out_of_service = true; break;
    case event_type::runner_started: gpu.out_of_service = false; break;
    default: break;
  }
}

bool campaign_view::apply(const event& e) {
  // A heartbeat is not part of the event log: its seq is the last event's (feed/heartbeat.hpp).
  if (e.type == event_type::heartbeat)
    return false;
  if (last_seq_ && e.seq <= *last_seq_) {
    ++ignored_;
    return false;
  }
  last_seq_ = e.seq;
  ++applied_;
  if (!first_ts_)
    first_ts_ = e.ts;
  last_ts_ = e.ts;
  auto detail = read_detail(e.detail_json);

  if (!e.campaign.empty()) {
    auto& campaign = campaign_for(e);
    campaign.last_ts = e.ts;
    auto end = [&](run_state state) {
      campaign.state = state;
      campaign.ended_ts = e.ts;
      campaign.ended_runs_s += std::max(0.0, e.ts - campaign.run_started_ts.value_or(campaign.started_ts));
      campaign.run_started_ts.reset();
      campaign.reason = text_of(detail, "reason").value_or(text_of(detail, "message").value_or(""));
      // Nothing runs after the end: a lease whose release never came (a profile's, say) ends here.
      for (auto& [index, gpu] : gpus_)
        if (gpu.leased_ts) {
          gpu.occupied_s += std::max(0.0, e.ts - *gpu.leased_ts);
          gpu.leased_ts.reset();
        }
    };
    switch (e.type) {
      case event_type::campaign_started:
        campaign.state = run_state::running;
        campaign.run_started_ts = e.ts;
        campaign.ended_ts.reset();
        campaign.reason.clear();
        if (auto budget = positive(detail, "wall_time_s"))
          campaign.wall_budget_s = budget;
        break;
      case event_type::campaign_finished: end(run_state::finished); break;
      case event_type::campaign_failed: end(run_state::failed); break;
      case event_type::campaign_interrupted: end(run_state::interrupted); break;
      default: break;
    }
  }

  if (!e.job.empty())
    apply_to_job(job_for(e), e, detail);
  if (e.gpu >= 0)
    apply_to_gpu(gpus_[e.gpu], e, detail);

  if (e.type == event_type::feed_dropped)
    feed_dropped_ += static_cast<std::uint64_t>(number_of(detail, "dropped").value_or(0.0));

  if (is_problem(e.type)) {
    ++problems_seen_;
    problems_.push_back(problem{e.seq, e.ts, e.type, place_of(e), problem_message(detail)});
    while (problems_.size() > options_.problem_lines)
      problems_.pop_front();
  }
  recent_.push_back(e);
  while (recent_.size() > options_.recent_events)
    recent_.pop_front();
  return true;
}

} // namespace warpforge::feed
