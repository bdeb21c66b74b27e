#pragma once
// When more rounds can no longer change a race's order (docs/measurement.md, "Stopping"): the
// rule that ends a race of near-identical kernels whose intervals stopped narrowing, instead of
// letting it run to the budget (an sgemm race of five 2.4-2.6 ms kernels ran 306 rounds, 11.8 s).
//
//   if (rounds >= settle_min_rounds && order_settled(now, at_half, rounds, rounds_at_budget)) stop;
//
// Two kernels' order is decided when their reported intervals (round_stats.hpp) are apart. An
// overlapping pair can still be separated only by narrowing: each interval's arms are projected
// to the end of the budget at the pace they narrowed over the second half of the rounds
// (arm ∝ rounds^-a, a from the arm at rounds/2 and at rounds, clamped to [0, 1/2]: never faster
// than independent samples narrow). The order is settled when every pair is either apart now, or
// still overlaps at the projected end: no round the budget allows could change which kernel is
// faster than which. The intervals themselves are unchanged: each stays the honest 95% interval of
// its samples, and a kernel whose interval did not reach ci_target is reported `settled`, not
// `converged`. Host-only; seconds.

#include "gpu/stats/round_stats.hpp"

#include <cstddef>
#include <span>

namespace warpforge::gpu {

/// Rounds before the order rule may stop a race: the defaults' races converge in 5, and the
/// narrowing pace is read from rounds/2 to rounds, so it needs 10 rounds in each half.
inline constexpr std::size_t settle_min_rounds = 20;

/// The exponent a of arm ∝ rounds^-a between `earlier_arm_s` (after `earlier_rounds`) and `arm_s`
/// (after `rounds`), clamped to [0, 0.5]; 0.5 (the pace of independent samples) when either arm
/// is 0 or the rounds do not differ.
double narrowing_exponent(double earlier_arm_s, double arm_s, double earlier_rounds, double rounds);

/// Whether the order of `now`'s kernels is settled (above). `at_half`: the same kernels' summaries
/// after rounds/2 rounds, in the same order; `rounds_at_budget`: the rounds the budget allows at
/// the pace so far (>= rounds). False when the spans differ in size or hold fewer than 2 kernels.
bool order_settled(std::span<const round_summary> now, std::span<const round_summary> at_half, std::size_t rounds,
                   double rounds_at_budget);

} // namespace warpforge::gpu
