#include "tuning/stop_rule.hpp"

namespace warpforge::tuning {

std::string_view to_string(stop_reason reason) {
  switch (reason) {
  case stop_reason::near_peak: return "near_peak";
  case stop_reason::wall_time: return "wall_time";
  case stop_reason::iteration_budget: return "iteration_budget";
  case stop_reason::evaluation_budget: return "evaluation_budget";
  case stop_reason::patience: return "patience";
  case stop_reason::space_exhausted: return "space_exhausted";
  }
  return "unknown";
}

std::optional<stop_reason> stop_reason_from_string(std::string_view text) {
  for (auto reason : all_stop_reasons)
    if (to_string(reason) == text)
      return reason;
  return std::nullopt;
}

stop_limits stop_limits_from(const config::campaign_spec& campaign) {
  return {campaign.budget.iterations, campaign.budget.patience, campaign.budget.wall_time_s,
          campaign.proposer.max_evaluations};
}

job_progress after_iteration(job_progress progress, bool gained, std::uint64_t evaluations) {
  ++progress.iterations;
  progress.iterations_without_gain = gained ? 0 : progress.iterations_without_gain + 1;
  progress.evaluations += evaluations;
  return progress;
}

std::optional<stop_reason> should_stop(const job_progress& progress, const stop_limits& limits) {
  if (progress.near_peak)
    return stop_reason::near_peak;
  if (progress.elapsed_s >= limits.wall_time_s)
    return stop_reason::wall_time;
  if (progress.iterations >= limits.iterations)
    return stop_reason::iteration_budget;
  if (limits.max_evaluations && progress.evaluations >= *limits.max_evaluations)
    return stop_reason::evaluation_budget;
  if (progress.iterations_without_gain >= limits.patience)
    return stop_reason::patience;
  if (progress.space_exhausted)
    return stop_reason::space_exhausted;
  return std::nullopt;
}

} // namespace warpforge::tuning
