#include "tuning/stop_rule.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::tuning {

constexpr vocabulary::enum_word<stop_reason> stop_reason_words[] = {
    {stop_reason::near_peak, "near_peak"},
    {stop_reason::wall_time, "wall_time"},
    {stop_reason::iteration_budget, "iteration_budget"},
    {stop_reason::evaluation_budget, "evaluation_budget"},
    {stop_reason::patience, "patience"},
    {stop_reason::space_exhausted, "space_exhausted"},
};
static_assert(vocabulary::covers(stop_reason_words, all_stop_reasons));

std::string_view to_string(stop_reason reason) { return vocabulary::word_of(stop_reason_words, reason); }

std::optional<stop_reason> stop_reason_from_string(std::string_view text) {
  return vocabulary::value_of(stop_reason_words, text);
}

stop_limits stop_limits_from(const config::budget_spec& budget, std::optional<std::uint64_t> max_evaluations) {
  return {budget.iterations, budget.patience, budget.wall_time_s, max_evaluations};
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
