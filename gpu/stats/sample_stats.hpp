#pragma once
// Summary statistics of timing samples: what warpforge reports for every measurement.
//
//   auto s = summarize(samples_s);   // s.median_s, s.median_ci, s.cv, ...
//
// Host-only (no CUDA): linked by the coordinator and by warpforge-runner. Every time is in seconds;
// ratios are 1.0 = 100%. Well defined for every n >= 0: an empty set gives all zeros, a single
// sample gives stddev 0 and confidence intervals of zero width with level 0 (no coverage claimed).

#include <cstddef>
#include <span>

namespace warpforge::gpu {

/// A confidence interval and the coverage it actually achieves.
struct confidence_interval {
  double low = 0.0;   // seconds (same unit as the samples)
  double high = 0.0;  // seconds
  double level = 0.0; // achieved coverage, 1.0 = 100%; 0 = no claim (too few samples)

  bool operator==(const confidence_interval&) const = default;
};

/// Nominal confidence of the intervals below: 0.95 = 95%.
inline constexpr double confidence_level = 0.95;

/// Largest sample count for which the median's interval uses exact binomial order statistics;
/// above it, the normal approximation of the binomial picks the ranks.
inline constexpr std::size_t exact_median_ci_max_samples = 1000;

struct sample_stats {
  std::size_t count = 0;          // samples
  double median_s = 0.0;          // seconds; mean of the two middle samples when count is even
  double mean_s = 0.0;            // seconds
  double stddev_s = 0.0;          // seconds, sample standard deviation (n - 1); 0 when count < 2
  double cv = 0.0;                // stddev / mean, 1.0 = 100%; 0 when mean is 0
  double min_s = 0.0;             // seconds
  double max_s = 0.0;             // seconds
  confidence_interval median_ci;  // distribution-free, order statistics (see median_interval)
  confidence_interval mean_ci;    // Student t, mean +- t(0.975, n-1) * stddev / sqrt(n)
  double rse = 0.0;               // relative standard error of the mean: stddev / sqrt(n) / mean

  bool operator==(const sample_stats&) const = default;
};

/// Statistics of `samples_s` (seconds, finite, any order; copied and sorted internally).
sample_stats summarize(std::span<const double> samples_s);

/// 95% interval of the median of `sorted_s` (ascending), distribution-free: [x(j), x(n+1-j)]
/// (1-based order statistics) with the largest j whose coverage 1 - 2 P(B <= j-1),
/// B ~ Binomial(n, 1/2), is still >= 95%. Exact binomial for n <= exact_median_ci_max_samples,
/// else j = floor(n/2 - 1.96 sqrt(n)/2) (normal approximation, level reported as 0.95).
/// For n <= 5 no pair reaches 95%: the interval is [min, max] with its true, lower level.
confidence_interval median_interval(std::span<const double> sorted_s);

/// The 97.5% quantile of Student's t with `degrees_of_freedom` >= 1: a table for 1..30, then a
/// Cornish-Fisher expansion around the normal quantile (error < 1e-5 for df > 30).
double student_t_975(std::size_t degrees_of_freedom);

} // namespace warpforge::gpu
