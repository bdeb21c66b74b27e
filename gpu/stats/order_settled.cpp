#include "gpu/stats/order_settled.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::gpu {

namespace {

constexpr double fastest_narrowing = 0.5; // independent samples: arm ∝ rounds^-1/2

// One kernel's interval projected to the end of the budget: each arm shrunk at its own pace.
struct projected {
  double low_s = 0;
  double high_s = 0;
};

projected project(const round_summary& now, const round_summary& half, double rounds, double half_rounds,
                  double rounds_at_budget) {
  const double median = now.stats.median_s;
  const double down = median - now.stats.median_ci.low;
  const double up = now.stats.median_ci.high - median;
  const double half_down = half.stats.median_s - half.stats.median_ci.low;
  const double half_up = half.stats.median_ci.high - half.stats.median_s;
  const double ratio = rounds / std::max(rounds, rounds_at_budget); // <= 1
  const double down_scale = std::pow(ratio, narrowing_exponent(half_down, down, half_rounds, rounds));
  const double up_scale = std::pow(ratio, narrowing_exponent(half_up, up, half_rounds, rounds));
  return {median - down * down_scale, median + up * up_scale};
}

bool overlap(double low_a, double high_a, double low_b, double high_b) {
  return low_a <= high_b && low_b <= high_a;
}

} // namespace

double narrowing_exponent(double earlier_arm_s, double arm_s, double earlier_rounds, double rounds) {
  if (!(earlier_arm_s > 0.0) || !(arm_s > 0.0) || !(rounds > earlier_rounds) || !(earlier_rounds > 0.0))
    return fastest_narrowing;
  const double a = std::log(earlier_arm_s / arm_s) / std::log(rounds / earlier_rounds);
  return std::clamp(a, 0.0, fastest_narrowing);
}

bool order_settled(std::span<const round_summary> now, std::span<const round_summary> at_half, std::size_t rounds,
                   double rounds_at_budget) {
  if (now.size() < 2 || now.size() != at_half.size() || rounds < 2)
    return false;
  const double r = static_cast<double>(rounds);
  const double half = static_cast<double>(rounds / 2);
  for (std::size_t i = 0; i < now.size(); ++i)
    for (std::size_t j = i + 1; j < now.size(); ++j) {
      const auto& a = now[i].stats.median_ci;
      const auto& b = now[j].stats.median_ci;
      if (!overlap(a.low, a.high, b.low, b.high))
        continue; // their order is decided
      const auto pa = project(now[i], at_half[i], r, half, rounds_at_budget);
      const auto pb = project(now[j], at_half[j], r, half, rounds_at_budget);
      if (!overlap(pa.low_s, pa.high_s, pb.low_s, pb.high_s))
        return false; // the rounds left could still tell them apart
    }
  return true;
}

} // namespace warpforge::gpu
