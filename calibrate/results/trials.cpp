#include "calibrate/results/trials.hpp"

#include "gpu/stats/sample_stats.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::calibrate {

bool has_center(const trial_stats& stats) { return stats.n >= 1; }
bool all_identical(const trial_stats& stats) { return stats.n >= 2 && stats.stddev == 0; }
bool has_spread(const trial_stats& stats) { return stats.n >= 2 && !all_identical(stats); }
bool has_interval(const trial_stats& stats) { return has_center(stats) && !all_identical(stats); }

std::string missing_spread_reason(const trial_stats& stats) {
  if (stats.n == 0)
    return "no trial kept";
  if (stats.n == 1)
    return "one trial kept: no spread";
  if (all_identical(stats))
    return "all " + std::to_string(stats.n) + " kept trials identical: no spread to measure";
  return "";
}

trial_stats summarize(const std::vector<trial>& trials, double throttle_fraction) {
  trial_stats out;
  for (const trial& t : trials)
    if (std::isfinite(t.sm_clock_mhz))
      out.max_clock_mhz = std::max(out.max_clock_mhz, t.sm_clock_mhz);
  const double throttle_below_mhz = throttle_fraction * out.max_clock_mhz;

  std::vector<double> kept;
  kept.reserve(trials.size());
  for (const trial& t : trials) {
    if (!std::isfinite(t.value)) {
      ++out.invalid;
      continue;
    }
    // An unknown clock (0) cannot show throttling: the trial is kept.
    const bool clock_known = t.sm_clock_mhz > 0 && std::isfinite(t.sm_clock_mhz);
    if (clock_known && t.sm_clock_mhz < throttle_below_mhz) {
      ++out.discarded;
      continue;
    }
    kept.push_back(t.value);
  }

  const gpu::sample_stats s = gpu::summarize(kept);
  out.n = s.count;
  out.median = s.median_s;
  out.mean = s.mean_s;
  out.stddev = s.stddev_s;
  // sample_stats gives a signed cv (stddev / mean); a negative-valued parameter keeps its spread.
  out.cv = std::abs(s.cv);
  out.ci95_low = s.median_ci.low;
  out.ci95_high = s.median_ci.high;
  out.ci_level = s.median_ci.level;
  return out;
}

} // namespace warpforge::calibrate
