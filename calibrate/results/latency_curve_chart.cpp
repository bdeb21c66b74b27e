// latency_curve_svg and format_bytes (charts.hpp).
#include "calibrate/results/charts.hpp"
#include "calibrate/results/number_format.hpp"
#include "calibrate/results/svg_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpforge::calibrate {
namespace {

// The plot area inside the picture, pixels.
constexpr int width = 760, height = 420;
constexpr double left = 70, right = 20, top = 40, bottom = 60;
constexpr int max_x_ticks = 12; // labels further apart than this would overlap

// Maps data to pixels: x on a log2 scale (bytes), y linear from 0 (cycles).
struct scale {
  double log2_min = 0, log2_max = 1; // log2(bytes) at the left and right edges
  double y_max = 1;                  // cycles at the top edge

  double px(double bytes) const {
    return left + (std::log2(bytes) - log2_min) / (log2_max - log2_min) * (width - left - right);
  }
  double py(double cycles) const { return height - bottom - cycles / y_max * (height - top - bottom); }
};

// A round step for about `count` ticks up to `max`: 1, 2 or 5 x 10^k.
double nice_step(double max, int count) {
  const double raw = max / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw)
      return m * magnitude;
  return 10.0 * magnitude;
}

std::string axes(const scale& s, std::string_view unit) {
  std::string out = svg::line(left, height - bottom, width - right, height - bottom, "black");
  out += svg::line(left, top, left, height - bottom, "black");
  const int first = static_cast<int>(s.log2_min), last = static_cast<int>(s.log2_max);
  const int every = std::max(1, (last - first + max_x_ticks - 1) / max_x_ticks);
  for (int p = first; p <= last; p += every) {
    const double x = s.px(std::ldexp(1.0, p));
    out += svg::line(x, height - bottom, x, height - bottom + 5, "black");
    out += svg::text(x, height - bottom + 18, format_bytes(std::ldexp(1.0, p)), "middle", 10);
  }
  const double step = nice_step(s.y_max, 5);
  for (double y = 0; y <= s.y_max + step / 1000; y += step) {
    out += svg::line(left - 5, s.py(y), left, s.py(y), "black");
    out += svg::line(left, s.py(y), width - right, s.py(y), "#e0e0e0");
    out += svg::text(left - 8, s.py(y) + 4, format_value(y), "end", 10);
  }
  out += svg::text((left + width - right) / 2, height - 15, "working set (log scale)", "middle");
  out += "<text x=\"18\" y=\"" + svg::coord((top + height - bottom) / 2) +
         "\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 18 " +
         svg::coord((top + height - bottom) / 2) + ")\">latency (" + svg::escape(unit) + ")</text>\n";
  return out;
}

std::string points(const std::vector<curve_point>& sorted, const scale& s) {
  std::string path = "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"";
  std::string dots;
  for (const auto& p : sorted) {
    path += svg::coord(s.px(p.x)) + "," + svg::coord(s.py(p.y)) + " ";
    dots += "<circle class=\"point\" cx=\"" + svg::coord(s.px(p.x)) + "\" cy=\"" +
            svg::coord(s.py(p.y)) + "\" r=\"3\" fill=\"#1f77b4\"><title>" +
            svg::escape(format_bytes(p.x) + ": " + format_value(p.y) + " cycles") +
            "</title></circle>\n";
  }
  return path + "\"/>\n" + dots;
}

std::string knee_marks(const std::vector<curve_point>& sorted, const scale& s) {
  std::string out;
  for (const knee& k : find_knees(sorted)) {
    const double x = s.px(k.x);
    out += "<g class=\"knee\">" + svg::line(x, top, x, height - bottom, "#d62728", "5 4");
    out += svg::text(x + 4, top + 14, format_bytes(k.x) + ": " + format_value(k.before) + " -> " +
                                          format_value(k.after) + " cycles", "start", 11);
    out += "</g>\n";
  }
  return out;
}

// The value in bytes when it is a cache size, else 0.
double value_bytes(const parameter_result& result) {
  return result.value ? *result.value * bytes_per_size_unit(result.unit) : 0.0;
}

// Where the first level ends (find_onset): a solid line. It is "size" when the value came from
// it (an onset-rule size), else "knee onset": beside the value's own line, or alone when the
// curve gave no value.
std::string onset_mark(const std::vector<curve_point>& sorted, const scale& s, double value) {
  const auto onset = find_onset(sorted);
  if (!onset)
    return {};
  const bool is_value = value > 0 && std::abs(value - onset->x) <= 0.01 * value;
  const double x = s.px(onset->x);
  return "<g class=\"onset\">" + svg::line(x, top, x, height - bottom, "#2ca02c", "") +
         svg::text(x - 4, top + 28, (is_value ? "size " : "knee onset ") + format_bytes(onset->x) +
                                        " (last within 5% of " + format_value(onset->level) + " cycles)",
                   "end", 11) +
         "</g>\n";
}

// A size read elsewhere than the onset (results/capacity_fit.hpp: the miss line past the knee).
std::string value_mark(const std::vector<curve_point>& sorted, const scale& s, double value) {
  const auto onset = find_onset(sorted);
  if (value <= 0 || (onset && std::abs(value - onset->x) <= 0.01 * value))
    return {};
  const double x = s.px(value);
  return "<g class=\"value\">" + svg::line(x, top, x, height - bottom, "#9467bd", "") +
         svg::text(x + 4, top + 42, "size " + format_bytes(value) + " (the value)", "start", 11) + "</g>\n";
}

} // namespace

std::string format_bytes(double bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t u = 0;
  while (std::abs(bytes) >= 1024.0 && u + 1 < std::size(units)) {
    bytes /= 1024.0;
    ++u;
  }
  return format_value(bytes) + " " + units[u];
}

std::string latency_curve_svg(const parameter_result& result) {
  std::vector<curve_point> sorted;
  for (const auto& p : result.curve)
    if (std::isfinite(p.x) && std::isfinite(p.y) && p.x > 0)
      sorted.push_back(p);
  std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.x < b.x; });
  std::string out = svg::open(width, height, result.name + ": latency against working set");
  out += svg::text(width / 2.0, 22, result.name + ": latency against working-set size", "middle", 14);
  if (sorted.empty())
    return out + svg::text(width / 2.0, height / 2.0, "no curve recorded", "middle") + "</svg>\n";
  scale s;
  s.log2_min = std::floor(std::log2(sorted.front().x));
  s.log2_max = std::max(s.log2_min + 1, std::ceil(std::log2(sorted.back().x)));
  double y_max = 0;
  for (const auto& p : sorted)
    y_max = std::max(y_max, p.y);
  s.y_max = y_max > 0 ? y_max * 1.1 : 1.0; // headroom above the highest point
  const double value = value_bytes(result);
  return out + axes(s, "cycles") + points(sorted, s) + knee_marks(sorted, s) + onset_mark(sorted, s, value) +
         value_mark(sorted, s, value) + "</svg>\n";
}

} // namespace warpforge::calibrate
