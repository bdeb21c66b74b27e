#pragma once
// When a job stops iterating (SEEDS-FACTS 2.2, issue 5): near the roofline, out of budget
// (iterations, evaluations, wall time), out of patience, or with nothing left to try.
//
//   job_progress progress;
//   progress = after_iteration(progress, e.champion.has_value(), evaluations_this_iteration);
//   progress.elapsed_s = clock_seconds;  progress.near_peak = diagnosis.near_peak;
//   if (auto why = should_stop(progress, stop_limits_from(campaign.budget, campaign.proposer.max_evaluations)))
//     finish(*why);
//
// Reasons are checked in the order of the enum; the first that holds is the answer.

#include "config/campaign_spec.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace warpforge::tuning {

enum class stop_reason : std::uint8_t {
  near_peak,         ///< the diagnosis says the kernel is near the roofline on every axis
  wall_time,         ///< the campaign's wall-time budget is spent
  iteration_budget,  ///< budget.iterations iterations done
  evaluation_budget, ///< proposer.max_evaluations candidates measured
  patience,          ///< budget.patience iterations in a row without a champion
  space_exhausted,   ///< the strategy has no new point to propose
};

inline constexpr stop_reason all_stop_reasons[] = {
    stop_reason::near_peak,         stop_reason::wall_time, stop_reason::iteration_budget,
    stop_reason::evaluation_budget, stop_reason::patience,  stop_reason::space_exhausted};

std::string_view to_string(stop_reason reason);
std::optional<stop_reason> stop_reason_from_string(std::string_view text);

/// Where a job stands after its latest iteration.
struct job_progress {
  bool near_peak = false;                     ///< from the diagnosis of the current best
  std::uint32_t iterations = 0;               ///< iterations done
  std::uint32_t iterations_without_gain = 0;  ///< since the last champion
  std::uint64_t evaluations = 0;              ///< candidates measured (branches and ablations)
  double elapsed_s = 0;                       ///< since the campaign started, seconds
  bool space_exhausted = false;               ///< the last proposal came back empty
};

struct stop_limits {
  std::uint32_t iterations = 0;                ///< >= 1
  std::uint32_t patience = 0;                  ///< >= 1
  double wall_time_s = 0;                      ///< seconds, > 0
  std::optional<std::uint64_t> max_evaluations; ///< none: no cap
};

/// A job's limits: the campaign's budget and its proposer's max_evaluations (none: no cap).
stop_limits stop_limits_from(const config::budget_spec& budget, std::optional<std::uint64_t> max_evaluations);

/// `progress` after one more iteration, which elected a champion (`gained`) or not, and measured
/// `evaluations` candidates.
job_progress after_iteration(job_progress progress, bool gained, std::uint64_t evaluations);

/// The reason to stop now, or nullopt to go on.
std::optional<stop_reason> should_stop(const job_progress& progress, const stop_limits& limits);

} // namespace warpforge::tuning
