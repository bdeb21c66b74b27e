#include "gpu/stats/round_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace warpforge::gpu {

double median_of(std::vector<double> samples_s) {
  if (samples_s.empty())
    return 0.0;
  std::sort(samples_s.begin(), samples_s.end());
  const std::size_t n = samples_s.size();
  return n % 2 == 1 ? samples_s[n / 2] : (samples_s[n / 2 - 1] + samples_s[n / 2]) / 2.0;
}

round_summary summarize_rounds(const std::vector<std::vector<double>>& rounds) {
  round_summary out;
  std::vector<double> pooled;
  std::vector<double> round_medians;
  for (const auto& round : rounds) {
    if (round.empty())
      continue;
    pooled.insert(pooled.end(), round.begin(), round.end());
    round_medians.push_back(median_of(round));
  }
  out.rounds = round_medians.size();
  out.stats = summarize(pooled);
  out.pooled_median_ci = out.stats.median_ci;
  if (pooled.empty())
    return out;

  const double median = out.stats.median_s;
  // A re-measurement's own sampling error, as large as ours and independent of it.
  double low_arm = std::numbers::sqrt2 * (median - out.pooled_median_ci.low);
  double high_arm = std::numbers::sqrt2 * (out.pooled_median_ci.high - median);
  double level = out.pooled_median_ci.level;
  const std::size_t r = out.rounds;
  if (r >= 2) {
    double mean = 0.0;
    for (double m : round_medians)
      mean += m;
    mean /= static_cast<double>(r);
    double squares = 0.0;     // lag 0
    double neighbours = 0.0;  // lag 1
    for (std::size_t i = 0; i < r; ++i) {
      squares += (round_medians[i] - mean) * (round_medians[i] - mean);
      if (i > 0)
        neighbours += (round_medians[i] - mean) * (round_medians[i - 1] - mean);
    }
    out.round_spread_s = std::sqrt(squares / static_cast<double>(r - 1));
    // Drift that lasts longer than a round makes neighbouring rounds alike: fewer independent
    // rounds than R. AR(1) effective size R (1 - r1) / (1 + r1), r1 the lag-1 autocorrelation
    // clamped to [0, max_round_autocorrelation] (with 3 rounds or more; 2 cannot show it).
    const double r1 = r >= 3 && squares > 0.0
                        ? std::clamp(neighbours / squares, 0.0, max_round_autocorrelation)
                        : 0.0;
    out.effective_rounds = std::max(2.0, static_cast<double>(r) * (1.0 - r1) / (1.0 + r1));
    // Prediction interval for the mean of as many new rounds: t(R' - 1) s sqrt(1/R' + 1/R').
    const auto degrees = static_cast<std::size_t>(std::floor(out.effective_rounds)) - 1;
    const double drift_arm = student_t_975(degrees) * out.round_spread_s *
                             std::sqrt(2.0 / out.effective_rounds);
    low_arm = std::max(low_arm, drift_arm);
    high_arm = std::max(high_arm, drift_arm);
  } else {
    out.effective_rounds = static_cast<double>(r);
  }
  // The claim is the nominal 95% once either arm reaches it (a handful of samples in one round
  // cannot: the order statistics then say what they do reach).
  if (r >= 2 || level >= confidence_level)
    level = confidence_level;
  out.stats.median_ci = {median - low_arm, median + high_arm, level};
  out.half_width = median > 0.0 ? std::max(low_arm, high_arm) / median : 0.0;
  return out;
}

} // namespace warpforge::gpu
