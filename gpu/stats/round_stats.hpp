#pragma once
// One kernel's samples from the rounds of a race, summarised with an honest interval
// (docs/measurement.md, "What the interval claims").
//
//   auto s = summarize_rounds(samples_by_round);    // s.stats.median_s, s.stats.median_ci, ...
//
// The reported median_ci is a 95% prediction interval for the median of an immediate
// re-measurement of the same kernel, not only a confidence interval for this run's own median:
// the pooled median M, widened on each side by the larger of
//   - sqrt(2) x the order-statistic CI's arm on that side (the re-measurement's median has the
//     same sampling error as ours, independent of it: the difference has sqrt(2) times the spread),
//   - t(0.975, R'-1) x s_R x sqrt(1/R' + 1/R'), s_R the standard deviation of the R per-round
//     medians: drift between rounds, from clocks or temperature, shows there and not in the pooled
//     order statistics, and a re-measurement of as many rounds has the same variance of its mean
//     round. R' = R (1 - r1) / (1 + r1) (at least 2) is the effective number of rounds when drift
//     outlasts a round: r1, the lag-1 autocorrelation of the round medians, clamped to
//     [0, max_round_autocorrelation] (AR(1) variance of a mean).
// With fewer than 2 rounds only the first applies. tests/gpu/stats/round_stats_test.cpp simulates
// drifting runs and checks the coverage. Host-only; seconds, ratios 1.0 = 100%.

#include "gpu/stats/sample_stats.hpp"

#include <cstddef>
#include <vector>

namespace warpforge::gpu {

/// The largest lag-1 autocorrelation of round medians the effective round count believes (a
/// handful of rounds estimates it poorly; 0.9 caps the shrink at 19x).
inline constexpr double max_round_autocorrelation = 0.9;

struct round_summary {
  sample_stats stats;                   // of the pooled samples; median_ci is the widened,
                                        // reported interval described above
  confidence_interval pooled_median_ci; // the order-statistic 95% CI of the pooled samples alone
  std::size_t rounds = 0;               // rounds that hold at least one sample
  double round_spread_s = 0.0;          // seconds: sample stddev of the per-round medians
                                        // (0 with fewer than 2 rounds)
  double effective_rounds = 0.0;        // rounds: R' above (R with fewer than 3 rounds)
  double half_width = 0.0;              // ratio: the reported interval's larger arm / the median
                                        // (0 when the median is 0)
};

/// The median of `samples_s` (any order; 0 when empty).
double median_of(std::vector<double> samples_s);

/// Summary of `rounds` (each a round's samples, seconds; empty rounds are skipped).
round_summary summarize_rounds(const std::vector<std::vector<double>>& rounds);

} // namespace warpforge::gpu
