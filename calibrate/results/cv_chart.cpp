// cv_chart_svg (charts.hpp): the CV of every timed parameter against the PASS limit.
#include "calibrate/results/charts.hpp"
#include "calibrate/results/number_format.hpp"
#include "calibrate/results/svg_text.hpp"

#include <algorithm>

namespace warpforge::calibrate {
namespace {

constexpr int width = 760;
constexpr double left = 230, right = 60, top = 50, bar_height = 18, bar_gap = 6, bottom = 50;

double bar_x(double cv, double cv_max) { return left + cv / cv_max * (width - left - right); }

std::string limit_line(double cv, double cv_max, double height, std::string_view label,
                       std::string_view colour) {
  const double x = bar_x(cv, cv_max);
  return svg::line(x, top - 8, x, height - bottom, colour, "5 4") +
         svg::text(x, top - 12, std::string{label} + " " + format_percent(cv), "middle", 10);
}

std::string bar(const parameter_result& r, double y, double cv_max) {
  const bool passing = is_passing(r.result);
  const double end = bar_x(std::min(r.stats.cv, cv_max), cv_max);
  std::string out = svg::text(left - 8, y + bar_height - 5, r.name, "end", 11);
  out += "<rect class=\"bar\" x=\"" + svg::coord(left) + "\" y=\"" + svg::coord(y) + "\" width=\"" +
         svg::coord(std::max(0.0, end - left)) + "\" height=\"" + svg::coord(bar_height) +
         "\" fill=\"" + (passing ? "#2ca02c" : "#d62728") + "\"><title>" +
         svg::escape(r.name + ": CV " + format_percent(r.stats.cv) + ", " +
                     std::string{to_string(r.result)} + ", " + std::to_string(r.stats.n) +
                     " trials") +
         "</title></rect>\n";
  out += svg::text(end + 4, y + bar_height - 5, format_percent(r.stats.cv), "start", 10);
  return out;
}

} // namespace

std::string cv_chart_svg(const std::vector<parameter_result>& results) {
  std::vector<const parameter_result*> timed;
  for (const auto& r : results)
    if (r.value && has_spread(r.stats)) // a CV needs two kept trials that differ; the others have no bar
      timed.push_back(&r);
  const judge_rules rules;
  double cv_max = rules.max_cv * 2; // room past the limit; larger CVs are clipped, labelled true
  for (const auto* r : timed)
    cv_max = std::max(cv_max, std::min(r->stats.cv * 1.1, rules.max_cv * 8));
  const double height = top + bottom + std::max<std::size_t>(1, timed.size()) * (bar_height + bar_gap);
  std::string out = svg::open(width, static_cast<int>(height), "coefficient of variation per parameter");
  out += svg::text(width / 2.0, 20, "CV per parameter (green: passing, red: not)", "middle", 14);
  if (timed.empty())
    return out + svg::text(width / 2.0, top + 20, "no CV measured (a CV needs two kept trials that differ)", "middle") +
           "</svg>\n";
  out += svg::line(left, top, left, height - bottom, "black");
  for (std::size_t i = 0; i < timed.size(); ++i)
    out += bar(*timed[i], top + static_cast<double>(i) * (bar_height + bar_gap), cv_max);
  out += limit_line(rules.target_cv, cv_max, height, "target", "#ff7f0e");
  out += limit_line(rules.max_cv, cv_max, height, "PASS limit", "#d62728");
  out += svg::text((left + width - right) / 2, height - 15, "CV = stddev / mean", "middle");
  return out + "</svg>\n";
}

} // namespace warpforge::calibrate
