#include "gpu/stats/stopping_rule.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/stats/order_settled.hpp"

#include <algorithm>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<stop_decision> stop_decision_words[] = {
    {stop_decision::keep_going, "keep_going"},
    {stop_decision::converged, "converged"},
    {stop_decision::budget_exhausted, "budget_exhausted"},
    {stop_decision::max_samples, "max_samples"},
    {stop_decision::settled, "settled"},
};
static_assert(vocabulary::covers(stop_decision_words, all_stop_decisions));

std::string_view to_string(stop_decision decision) { return vocabulary::word_of(stop_decision_words, decision); }

std::optional<stop_decision> stop_decision_from_string(std::string_view text) {
  return vocabulary::value_of(stop_decision_words, text);
}

bool is_final(stop_decision decision) {
  return decision != stop_decision::keep_going;
}

stopping_rule::stopping_rule(timing_policy policy, std::size_t kernels)
    : policy_(policy), kernels_(std::max<std::size_t>(kernels, 1)) {}

double stopping_rule::budget_s() const {
  return policy_.max_time_s * static_cast<double>(kernels_);
}

bool stopping_rule::kernel_converged(const round_summary& kernel, std::size_t rounds) const {
  return rounds >= policy_.min_rounds && kernel.stats.count >= policy_.min_samples &&
         kernel.stats.median_s > 0.0 && kernel.half_width <= policy_.ci_target;
}

stop_decision stopping_rule::decide(std::span<const round_summary> kernels, std::size_t rounds, double wall_s,
                                    std::span<const round_summary> at_half) const {
  if (!kernels.empty() && std::all_of(kernels.begin(), kernels.end(), [&](const round_summary& k) {
        return kernel_converged(k, rounds);
      }))
    return stop_decision::converged;
  // A race at its budget has no rounds left to project: it ran out, whatever the order says
  // (checked before settled, which would otherwise read "no round could change it" there).
  if (wall_s >= budget_s())
    return stop_decision::budget_exhausted;
  // The rounds the budget allows at this pace: what the order rule projects the intervals to.
  const double rounds_at_budget = wall_s > 0.0 ? static_cast<double>(rounds) * budget_s() / wall_s
                                               : static_cast<double>(rounds);
  if (rounds >= settle_min_rounds && rounds >= policy_.min_rounds &&
      std::all_of(kernels.begin(), kernels.end(),
                  [&](const round_summary& k) { return k.stats.count >= policy_.min_samples; }) &&
      order_settled(kernels, at_half, rounds, rounds_at_budget))
    return stop_decision::settled;
  if (std::any_of(kernels.begin(), kernels.end(),
                  [&](const round_summary& k) { return k.stats.count >= policy_.max_samples; }))
    return stop_decision::max_samples;
  return stop_decision::keep_going;
}

stop_decision stopping_rule::kernel_decision(const round_summary& kernel, std::size_t rounds,
                                             stop_decision race) const {
  return kernel_converged(kernel, rounds) ? stop_decision::converged : race;
}

} // namespace warpforge::gpu
