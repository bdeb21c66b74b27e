#pragma once
// Champion election: which of an iteration's branches becomes the new best, and the frontier of
// the others. A pure function of recorded timings (SEEDS-FACTS 2.5, 2.7).
//
//   auto e = elect_champion(best_s, branches, campaign.budget.noise_threshold);
//   if (e.champion) promote(branches[*e.champion]);     // else: no gain this iteration
//   for (auto& f : e.frontier) archive(branches[f.branch], f.delta_s);
//
// Rules:
//   - only passed branches with a time compete; an incorrect (or failed) branch never wins,
//     however fast;
//   - a branch beats the current best when its median is below best * (1 - noise_threshold) —
//     more than the threshold faster — and, when its confidence interval is given, the interval's
//     upper end is below the best too (a gain the measurement cannot tell from noise is none);
//   - with no current best (the first measurement) every passed branch beats it;
//   - among the branches that beat the best, the fastest median wins; equal medians go to the
//     lower interval upper end, then to the earlier branch.

#include "foundation/vocabulary/branch.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::tuning {

/// One measured (or failed) branch of an iteration.
struct branch_result {
  std::string name;                 ///< the caller's name for it (e.g. its point text)
  std::vector<std::string> methods; ///< the methods it claims
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  double median_s = 0;              ///< median kernel time, seconds; read only when passed
  std::optional<double> ci_low_s;   ///< the median's confidence interval, seconds; optional
  std::optional<double> ci_high_s;
  std::string detail;               ///< why it failed, one line (compiler error, fault); may be empty
};

/// What the iteration made of a branch; the attempt memory's first word (attempt_memory.hpp).
enum class branch_verdict : std::uint8_t {
  accepted, ///< the champion: the new best
  rejected, ///< correct and measured, but not the champion (slower, within noise, or beaten)
  failed,   ///< did not pass: compile error, incorrect, fault, timeout, ...
};

inline constexpr branch_verdict all_branch_verdicts[] = {
    branch_verdict::accepted, branch_verdict::rejected, branch_verdict::failed};

std::string_view to_string(branch_verdict verdict);
std::optional<branch_verdict> branch_verdict_from_string(std::string_view text);

/// A correct branch that did not win, kept for later iterations (fastest first).
struct frontier_entry {
  std::size_t branch = 0; ///< index into the branches
  double median_s = 0;    ///< seconds
  double delta_s = 0;     ///< median minus the champion's (or the old best's when none), seconds
};

struct election {
  std::optional<std::size_t> champion;   ///< index into the branches; none: no gain
  std::optional<double> previous_best_s; ///< the time the branches had to beat, seconds
  double noise_threshold = 0;            ///< relative, 0.02 = 2%
  std::vector<frontier_entry> frontier;  ///< every other passed, timed branch, fastest first
  std::vector<branch_verdict> verdicts;  ///< per branch, in input order
};

/// Whether a branch at `median_s` (interval upper end `ci_high_s`) beats `best_s`.
bool beats(double median_s, std::optional<double> ci_high_s, std::optional<double> best_s,
           double noise_threshold);

/// Elects the champion of `branches` against `current_best_s` (none: nothing measured yet).
/// Throws std::invalid_argument when noise_threshold is outside [0, 1).
election elect_champion(std::optional<double> current_best_s,
                        std::span<const branch_result> branches, double noise_threshold);

} // namespace warpforge::tuning
