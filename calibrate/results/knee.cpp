#include "calibrate/results/knee.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::calibrate {
namespace {

// A run of consecutive points at one latency level.
struct plateau {
  std::vector<double> ys; // cycles
  double last_x = 0;      // bytes
  double level = 0;       // cycles, median of ys
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

bool near(double y, double level, double tolerance) {
  return std::abs(y - level) <= tolerance * std::abs(level);
}

// Consecutive points within `tolerance` of the running level share a plateau.
std::vector<plateau> split(const std::vector<curve_point>& sorted, double tolerance) {
  std::vector<plateau> out;
  for (const curve_point& p : sorted) {
    if (out.empty() || !near(p.y, out.back().level, tolerance))
      out.push_back({});
    plateau& current = out.back();
    current.ys.push_back(p.y);
    current.last_x = p.x;
    current.level = median(current.ys);
  }
  return out;
}

} // namespace

std::vector<knee> find_knees(const std::vector<curve_point>& curve, double min_step) {
  std::vector<curve_point> sorted;
  for (const curve_point& p : curve)
    if (std::isfinite(p.x) && std::isfinite(p.y))
      sorted.push_back(p);
  std::sort(sorted.begin(), sorted.end(),
            [](const curve_point& a, const curve_point& b) { return a.x < b.x; });

  std::vector<plateau> levels;
  for (plateau& p : split(sorted, min_step / 2.0))
    if (p.ys.size() >= min_plateau_points)
      levels.push_back(std::move(p));

  std::vector<knee> out;
  if (levels.empty())
    return out;
  plateau current = std::move(levels.front());
  for (std::size_t i = 1; i < levels.size(); ++i) {
    plateau& next = levels[i];
    const double step = std::abs(next.level - current.level) / std::abs(current.level);
    // A short excursion that comes back to the current level is noise (a burst of slow
    // accesses), not a level: latency does not return to a smaller cache's level.
    const bool returns = i + 1 < levels.size() && near(levels[i + 1].level, current.level, min_step / 2.0);
    if (current.level != 0.0 && step >= min_step && !returns) {
      out.push_back({current.last_x, current.level, next.level});
      current = std::move(next);
      continue;
    }
    // A small step: one level, split by a transition or a spike; it goes on.
    current.ys.insert(current.ys.end(), next.ys.begin(), next.ys.end());
    current.last_x = next.last_x;
    current.level = median(current.ys);
  }
  return out;
}

} // namespace warpforge::calibrate
