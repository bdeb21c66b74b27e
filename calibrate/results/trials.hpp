#pragma once
// The statistics of one parameter's trials: what a calibrate run reports for every measurement.
//
//   std::vector<trial> trials = ...;          // one per benchmark process run
//   trial_stats s = summarize(trials);        // s.median is the reported value
//
// Clocks are never locked (the seed locks them; warpforge may not own the GPU): each trial carries
// the SM clock measured during it, and a trial whose clock fell below `throttle_fraction` of the
// run's highest clock is discarded as throttled. A trial with an unknown clock (0) is kept.
// The arithmetic is gpu/stats/sample_stats (the same median, n-1 stddev and intervals as every
// timing of warpforge), applied to the parameter's own unit instead of seconds.

#include <cstddef>
#include <string>
#include <vector>

namespace warpforge::calibrate {

/// One process run of a benchmark.
struct trial {
  double value = 0;        // the parameter, in the catalog's unit
  double sm_clock_mhz = 0; // MHz, the SM clock during the measurement; 0: unknown
};

/// Default of summarize(): 0.97 = a trial whose clock is more than 3% below the highest is throttled.
inline constexpr double default_throttle_fraction = 0.97;

struct trial_stats {
  std::size_t n = 0;         // trials kept (the statistics are over these)
  std::size_t discarded = 0; // trials discarded as throttled
  std::size_t invalid = 0;   // trials discarded because their value is not a finite number
  double median = 0;         // the parameter's unit; the reported value
  double mean = 0;           // the parameter's unit
  double stddev = 0;         // the parameter's unit, sample standard deviation (n - 1); 0 when n < 2
  double cv = 0;             // stddev / mean, 1.0 = 100%; 0 when the mean is 0
  // 95% confidence interval OF THE MEDIAN (the reported value), distribution-free from order
  // statistics (gpu::median_interval); the parameter's unit. With n <= 5 it is [min, max] and its
  // true coverage is lower than 95% (ci_level says how much).
  double ci95_low = 0;
  double ci95_high = 0;
  double ci_level = 0;       // coverage the interval achieves, 1.0 = 100%; 0 when n < 2
  double max_clock_mhz = 0;  // MHz, the highest SM clock among the trials; 0 when none was known

  bool operator==(const trial_stats&) const = default;
};

/// Which statistics mean something. Kept trials give the centre (median, mean) and the CI's
/// bounds (the extreme kept trials when n <= 5); a spread (stddev, CV, the CI's coverage) needs
/// two. The fields of what is absent hold 0 and must be reported as not measured, never as 0.
///
/// Trials that all gave the same value (an integer latency, a count, a value printed to six
/// digits that never moves) have no spread to measure: their CV of 0 and CI [x, x] would read as
/// a precision the trials never showed, so reports say "N identical trials" instead, and the
/// interval is not given. Each trial is its own process run (the chases place their rings anew
/// in each), so identical trials are identical re-launches, not one launch counted N times.
bool has_center(const trial_stats& stats);    // n >= 1
bool all_identical(const trial_stats& stats); // n >= 2 and every kept trial the same value
bool has_spread(const trial_stats& stats);    // n >= 2 and not all identical
bool has_interval(const trial_stats& stats);  // a kept trial and not all identical: the CI's bounds
/// Why the spread is absent ("no trial kept", "one trial kept: no spread", "all 10 kept trials
/// identical: no spread to measure"); "" when it is there.
std::string missing_spread_reason(const trial_stats& stats);

/// Statistics of `trials` (any order), throttled and non-finite trials left out and counted.
trial_stats summarize(const std::vector<trial>& trials,
                      double throttle_fraction = default_throttle_fraction);

} // namespace warpforge::calibrate
