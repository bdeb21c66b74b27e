#include "calibrate/results/knee.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpforge::calibrate {
namespace {

// A run of consecutive points at one latency level.
struct plateau {
  std::vector<double> ys; // cycles
  double last_x = 0;      // bytes
  double level = 0;       // cycles, median of ys
};

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

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double bytes_per_size_unit(std::string_view unit) {
  return unit == "KiB" ? 1024.0 : unit == "MiB" ? 1024.0 * 1024.0 : 0.0;
}

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

std::optional<knee_onset> find_onset(const std::vector<curve_point>& curve, double tolerance) {
  std::vector<curve_point> sorted;
  for (const curve_point& p : curve)
    if (std::isfinite(p.x) && std::isfinite(p.y))
      sorted.push_back(p);
  std::sort(sorted.begin(), sorted.end(),
            [](const curve_point& a, const curve_point& b) { return a.x < b.x; });
  const auto levels = split(sorted, 0.125); // find_knees' plateau rule at its default step
  if (levels.empty() || levels.front().ys.size() < min_plateau_points)
    return std::nullopt;
  knee_onset out;
  out.level = levels.front().level;
  const double threshold = out.level * (1 + tolerance);
  // The last point at or below the threshold with every later point above it.
  std::size_t last_on = sorted.size();
  for (std::size_t i = sorted.size(); i-- > 0;)
    if (sorted[i].y <= threshold) {
      last_on = i;
      break;
    }
  if (last_on == sorted.size() || last_on + 1 == sorted.size())
    return std::nullopt; // nothing on the level, or the sweep never left it
  out.x = sorted[last_on].x;
  for (std::size_t i = last_on + 1; i < sorted.size(); ++i)
    out.top = std::max(out.top, sorted[i].y);
  const double ninety = out.level + 0.9 * (out.top - out.level);
  for (std::size_t i = last_on + 1; i < sorted.size(); ++i)
    if (sorted[i].y >= ninety) {
      out.x_90 = sorted[i].x;
      break;
    }
  return out;
}

std::string describe_onset(const knee_onset& onset, double bytes_per_unit, const std::string& unit) {
  const auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return std::string{text};
  };
  const double size = onset.x / bytes_per_unit, width = (onset.x_90 - onset.x) / bytes_per_unit;
  return "knee at " + number(size) + " " + unit + ": the last size within " + number(onset_tolerance * 100) +
         "% of the " + number(onset.level) + "-cycle level; 90% of the way to " + number(onset.top) +
         " cycles by " + number(onset.x_90 / bytes_per_unit) + " " + unit + " (" + number(width) + " " + unit +
         " wide, " + number(size > 0 ? width / size * 100 : 0) + "% of the size)";
}

} // namespace warpforge::calibrate
