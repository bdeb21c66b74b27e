#include "calibrate/results/capacity_fit.hpp"

#include "calibrate/results/number_format.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace warpforge::calibrate {
namespace {

struct line {
  double intercept = 0, slope = 0; // y = intercept + slope / x
};

// Least squares of y on u = 1 / x; nullopt when every point has the same x.
std::optional<line> fit_line(const std::vector<curve_point>& points) {
  double mean_u = 0, mean_y = 0;
  for (const curve_point& p : points) {
    mean_u += 1 / p.x;
    mean_y += p.y;
  }
  mean_u /= points.size();
  mean_y /= points.size();
  double suu = 0, suy = 0;
  for (const curve_point& p : points) {
    suu += (1 / p.x - mean_u) * (1 / p.x - mean_u);
    suy += (1 / p.x - mean_u) * (p.y - mean_y);
  }
  if (!(suu > 0))
    return std::nullopt;
  return line{mean_y - suy / suu * mean_u, suy / suu};
}

std::vector<curve_point> from(const std::vector<curve_point>& curve, double first_x) {
  std::vector<curve_point> out;
  for (const curve_point& p : curve)
    if (std::isfinite(p.x) && std::isfinite(p.y) && p.x >= first_x)
      out.push_back(p);
  return out;
}

} // namespace

expected<capacity_fit, std::string> fit_capacity(const std::vector<curve_point>& curve) {
  const auto onset = find_onset(curve);
  if (!onset)
    return unexpected{std::string{"the curve has no first level it leaves for good"}};
  // L_hit: the smallest sets, at most half the onset. The first plateau's median would do on a
  // flat curve, but on a walk's curve the plateau runs into the start of the rise.
  std::vector<double> small;
  for (const curve_point& p : curve)
    if (std::isfinite(p.x) && std::isfinite(p.y) && p.x <= onset->x / 2)
      small.push_back(p.y);
  capacity_fit out;
  out.hit_level = small.empty() ? onset->level : median(std::move(small));
  std::vector<curve_point> past = from(curve, fit_from_onset * onset->x);
  if (past.size() < min_fit_points)
    return unexpected{std::to_string(past.size()) + " point(s) at " + format_value(fit_from_onset) +
                      "x the onset or beyond; the fit needs " + std::to_string(min_fit_points)};
  // The line holds only where every set of the cache is full; a cache whose sets fill unevenly
  // (few ways, uneven hashing) still has some short near the onset. So the fit is redone over
  // the points at least fit_from_capacity x its own capacity until it keeps the same points.
  line fitted;
  for (std::size_t round = 0;; ++round) {
    const auto found = fit_line(past);
    if (!found)
      return unexpected{std::string{"the fitted points share one working set"}};
    fitted = *found;
    if (!(fitted.slope < 0) || !(fitted.intercept > out.hit_level))
      return unexpected{"past the knee the latency does not fall on a line towards a miss level above the " +
                        format_value(out.hit_level) + "-cycle hit level (miss level " + format_value(fitted.intercept) + ")"};
    out.capacity = -fitted.slope / (fitted.intercept - out.hit_level);
    std::vector<curve_point> further = from(curve, fit_from_capacity * out.capacity);
    if (further.size() < min_fit_points || further.size() == past.size() || round == max_refits)
      break;
    past = std::move(further);
  }
  out.miss_level = fitted.intercept;
  double squares = 0;
  for (const curve_point& p : past) {
    const double residual = p.y - (fitted.intercept + fitted.slope / p.x);
    squares += residual * residual;
  }
  out.rms = std::sqrt(squares / past.size());
  out.points = past.size();
  const auto [low, high] = std::minmax_element(past.begin(), past.end(),
                                               [](const curve_point& a, const curve_point& b) { return a.x < b.x; });
  out.from = low->x;
  out.to = high->x;
  // The line is only the capacity where it is one, past twice C; otherwise the curve is not a
  // walk's miss line (a step, a ramp, a sweep too short), and no number is better than a wrong one.
  const double span = fitted.intercept - out.hit_level;
  if (out.rms > max_rms_of_span * span)
    return unexpected{"the points past the knee are no line in 1 / F (rms " + format_value(out.rms) + " cycles, over " +
                      format_percent(max_rms_of_span) + " of the " + format_value(span) + " cycles from hit to miss)"};
  const auto past_twice = std::count_if(past.begin(), past.end(), [&](const curve_point& p) {
    return p.x >= fit_from_capacity * out.capacity;
  });
  if (past_twice < static_cast<std::ptrdiff_t>(min_fit_points))
    return unexpected{std::to_string(past_twice) + " fitted size(s) past twice the capacity; the fit needs " +
                      std::to_string(min_fit_points) + " (the sweep stops short, or its sets are short of full)"};
  return out;
}

std::string describe_fit(const capacity_fit& fit, double bytes_per_unit, const std::string& unit) {
  return "capacity " + format_value(fit.capacity / bytes_per_unit) + " " + unit +
         " from the miss line past the knee: cycles = L_miss - (L_miss - L_hit) x C / F fitted over " +
         std::to_string(fit.points) + " working sets from " + format_value(fit.from / bytes_per_unit) + " to " +
         format_value(fit.to / bytes_per_unit) + " " + unit + " (L_hit " + format_value(fit.hit_level) +
         " cycles, the small sets; L_miss " + format_value(fit.miss_level) + " cycles; rms " + format_value(fit.rms) +
         " cycles)";
}

} // namespace warpforge::calibrate
