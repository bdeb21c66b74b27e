#include "gpu/stats/sample_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace warpforge::gpu {
namespace {

// Two-sided 95%: the 97.5% quantile of the standard normal.
constexpr double z_975 = 1.959963984540054;

// t(0.975, df) for df = 1..30 (standard tables, 9 significant digits).
constexpr std::array<double, 30> t_975_table = {
  12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851,
  2.364624252,  2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830,
  2.160368656,  2.144786688, 2.131449546, 2.119905299, 2.109815578, 2.100922040,
  2.093024054,  2.085963447, 2.079613845, 2.073873068, 2.068657610, 2.063898562,
  2.059538553,  2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
};

// Probability in each tail the median interval may leave uncovered: (1 - 0.95) / 2.
constexpr double tail_probability = (1.0 - confidence_level) / 2.0;

// The 1-based rank j of the lower median bound; 0 when no j >= 1 keeps coverage >= 95%.
// Exact: the largest j with P(B <= j - 1) <= tail, B ~ Binomial(n, 1/2).
std::size_t exact_lower_rank(std::size_t n, double& tail_out) {
  // pmf(k) = C(n, k) / 2^n, by recurrence from pmf(0) = 2^-n (representable for n <= 1000).
  double pmf = std::ldexp(1.0, -static_cast<int>(n));
  double cdf = 0.0; // P(B <= k - 1) before adding pmf(k)
  std::size_t rank = 0;
  tail_out = 0.0;
  for (std::size_t k = 0; k <= n / 2; ++k) {
    // j = k + 1 is acceptable when P(B <= k) <= tail.
    if (cdf + pmf > tail_probability)
      break;
    cdf += pmf;
    rank = k + 1;
    tail_out = cdf;
    pmf = pmf * static_cast<double>(n - k) / static_cast<double>(k + 1);
  }
  return rank;
}

} // namespace

double student_t_975(std::size_t degrees_of_freedom) {
  if (degrees_of_freedom == 0)
    return std::numeric_limits<double>::infinity();
  if (degrees_of_freedom <= t_975_table.size())
    return t_975_table[degrees_of_freedom - 1];
  // Cornish-Fisher expansion of the t quantile in powers of 1/df (Abramowitz & Stegun 26.7.5).
  const double z = z_975;
  const double v = static_cast<double>(degrees_of_freedom);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  const double g1 = (z3 + z) / 4.0;
  const double g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
  const double g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
  const double g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / 92160.0;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

confidence_interval median_interval(std::span<const double> sorted_s) {
  const std::size_t n = sorted_s.size();
  if (n == 0)
    return {};
  if (n == 1)
    return {sorted_s.front(), sorted_s.front(), 0.0};
  std::size_t rank = 0;
  double level = 0.0;
  if (n <= exact_median_ci_max_samples) {
    double tail = 0.0;
    rank = exact_lower_rank(n, tail);
    level = 1.0 - 2.0 * tail;
  } else {
    const double half_n = static_cast<double>(n) / 2.0;
    rank = static_cast<std::size_t>(std::floor(half_n - z_975 * std::sqrt(static_cast<double>(n)) / 2.0));
    level = confidence_level;
  }
  if (rank == 0) // too few samples for 95%: the widest interval, with the coverage it has
    return {sorted_s.front(), sorted_s.back(), 1.0 - 2.0 * std::ldexp(1.0, -static_cast<int>(n))};
  return {sorted_s[rank - 1], sorted_s[n - rank], level};
}

sample_stats summarize(std::span<const double> samples_s) {
  sample_stats out;
  out.count = samples_s.size();
  if (samples_s.empty())
    return out;
  std::vector<double> sorted(samples_s.begin(), samples_s.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  out.min_s = sorted.front();
  out.max_s = sorted.back();
  out.median_s = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;

  double sum = 0.0;
  for (double x : sorted)
    sum += x;
  out.mean_s = sum / static_cast<double>(n);
  if (n >= 2) {
    double squares = 0.0; // two-pass: numerically stable for samples far from zero
    for (double x : sorted)
      squares += (x - out.mean_s) * (x - out.mean_s);
    out.stddev_s = std::sqrt(squares / static_cast<double>(n - 1));
  }
  const double standard_error = out.stddev_s / std::sqrt(static_cast<double>(n));
  if (out.mean_s != 0.0) {
    out.cv = out.stddev_s / out.mean_s;
    out.rse = standard_error / out.mean_s;
  }
  out.median_ci = median_interval(sorted);
  if (n >= 2) {
    const double half_width = student_t_975(n - 1) * standard_error;
    out.mean_ci = {out.mean_s - half_width, out.mean_s + half_width, confidence_level};
  } else {
    out.mean_ci = {out.mean_s, out.mean_s, 0.0};
  }
  return out;
}

} // namespace warpforge::gpu
