#pragma once
// When the rounds of a race stop (docs/measurement.md, "Stopping"): as soon as every kernel's
// reported interval is narrow enough, when more rounds could no longer change the kernels' order,
// or at the budget.
//
//   stopping_rule rule{policy, kernels.size()};
//   do { run_one_round(); } while (rule.decide(summaries, rounds, wall_s, at_half) == stop_decision::keep_going);
//
// Decisions, checked after every round, in this order:
//   converged        at least min_rounds rounds and min_samples samples per kernel, and every
//                    kernel's reported 95% interval (round_stats.hpp) has a half-width <= ci_target
//                    of its median;
//   settled          at least settle_min_rounds (20) rounds, and every pair of kernels is either
//                    apart or would still overlap at the budget's end at the pace its intervals
//                    narrowed over the last half of the rounds (order_settled.hpp);
//   budget_exhausted the timing wall time reached kernels x max_time_s, minima or not;
//   max_samples      a kernel has max_samples samples, minima or not;
//   keep_going       otherwise.
// Each kernel's own verdict (kernel_decision) is converged when its interval met the target,
// else the race's decision. Host-only; seconds, ratios 1.0 = 100%.

#include "gpu/stats/round_stats.hpp"
#include "gpu/stats/timing_policy.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace warpforge::gpu {

enum class stop_decision : std::uint8_t {
  keep_going,       // run another round
  converged,        // every interval within ci_target, minima met
  budget_exhausted, // the timing budget is spent (not converged)
  max_samples,      // a kernel reached max_samples (not converged)
  settled,          // more rounds could not change the kernels' order (not converged)
};
inline constexpr std::array all_stop_decisions{stop_decision::keep_going, stop_decision::converged,
                                               stop_decision::budget_exhausted,
                                               stop_decision::max_samples, stop_decision::settled};
std::string_view to_string(stop_decision decision);
std::optional<stop_decision> stop_decision_from_string(std::string_view text);

/// Whether `decision` ends sampling.
bool is_final(stop_decision decision);

class stopping_rule {
public:
  stopping_rule(timing_policy policy, std::size_t kernels);

  /// The race's decision after `rounds` rounds taking `wall_s` seconds of timing wall time, from
  /// each kernel's summary so far and, in `at_half`, the same kernels' summaries after rounds/2
  /// rounds (empty: the order rule is not checked).
  stop_decision decide(std::span<const round_summary> kernels, std::size_t rounds, double wall_s,
                       std::span<const round_summary> at_half = {}) const;

  /// Whether one kernel met the minima and the target.
  bool kernel_converged(const round_summary& kernel, std::size_t rounds) const;

  /// One kernel's verdict once the race stopped with `race`.
  stop_decision kernel_decision(const round_summary& kernel, std::size_t rounds, stop_decision race) const;

  /// Seconds of timing wall time the race may spend: kernels x max_time_s.
  double budget_s() const;

private:
  timing_policy policy_;
  std::size_t kernels_;
};

} // namespace warpforge::gpu
