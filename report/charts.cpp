// Two small SVG charts per job, written beside summary.md, drawn to go on a slide:
// - speed-up over the baseline per iteration: a point per measured candidate (ablations are not
//   candidates), the best so far as a step line over them, the 1.0x baseline dashed, y ticks in
//   round 1-2-5 steps from 0, axes titled with their units;
// - the roofline (log-log: arithmetic intensity against achieved FLOP/s): the memory roof (DRAM
//   bandwidth x intensity) up to the ridge point, the compute roof after it, each labelled with
//   its peak, and each diagnosed iteration's champion as a point (the latest one's figures named).
// Plain SVG text, no dependency: any browser or Markdown viewer shows them. Every text goes
// through text_node, which escapes it (markup_text.hpp): a job's name is shown, never run.
// scripts/chart_evidence.sh renders them to PNG (build/evidence/charts/) to look at.

#include "report/campaign_report.hpp"
#include "report/markup_text.hpp"

#include "foundation/files/atomic_write.hpp"
#include "storage/run_directory.hpp"
#include "foundation/vocabulary/number_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace warpforge::report {

namespace {

constexpr double width = 520;
constexpr double height = 320;
constexpr double margin_left = 70;
constexpr double margin_right = 20;
constexpr double margin_top = 36;
constexpr double margin_bottom = 48;
constexpr double plot_w = width - margin_left - margin_right;
constexpr double plot_h = height - margin_top - margin_bottom;
constexpr int max_ticks = 12; // bounds round_ticks' loop

// Round axis ticks from 0 to at least `top`, in steps of 1, 2 or 5 times a power of ten, about
// five of them: 0, 0.5, 1, 1.5 would be 0.5 steps; never 0.31, 0.61.
std::vector<double> round_ticks(double top) {
  const double raw = std::max(top, 1e-12) / 5;
  const double decade = std::pow(10, std::floor(std::log10(raw)));
  double step = decade * 10;
  for (double factor : {1.0, 2.0, 5.0})
    if (decade * factor >= raw) {
      step = decade * factor;
      break;
    }
  std::vector<double> ticks;
  for (int i = 0; i <= max_ticks && (ticks.empty() || ticks.back() < top); ++i)
    ticks.push_back(step * i);
  return ticks;
}

// A tick's number without noise: "0", "0.5", "2", "10", "1e+04".
std::string tick_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", std::fabs(v) < 1e-12 ? 0.0 : v);
  return buffer;
}

// A power of ten with its decimal prefix, for a log axis of rates: "100G", "1T", "10T".
std::string decade_text(double v) {
  constexpr std::array<std::pair<double, const char*>, 5> prefixes{
    {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, prefix] : prefixes)
    if (v >= scale * 0.999)
      return tick_text(v / scale) + prefix;
  return tick_text(v);
}

// The one way text enters a chart: `content` (a job's name, a number, a label) escaped as XML
// text, so no name can close the element or open another; `attributes` are the chart's own.
std::string text_node(const std::string& attributes, std::string_view content) {
  return "<text " + attributes + ">" + xml_text(content) + "</text>\n";
}

// x="..." y="..." with the chart's numbers.
std::string at(double x, double y) {
  std::ostringstream out;
  out << "x=\"" << x << "\" y=\"" << y << "\"";
  return out.str();
}

void open_svg(std::ostringstream& svg, const std::string& title) {
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << text_node(at(width / 2, 20) + " text-anchor=\"middle\" font-size=\"13\"", title)
      << "<rect x=\"" << margin_left << "\" y=\"" << margin_top << "\" width=\"" << plot_w
      << "\" height=\"" << plot_h << "\" fill=\"none\" stroke=\"#888\"/>\n";
}

void axis_labels(std::ostringstream& svg, const std::string& x, const std::string& y) {
  std::ostringstream turned;
  turned << "transform=\"translate(16," << margin_top + plot_h / 2 << ") rotate(-90)\" text-anchor=\"middle\"";
  svg << text_node(at(margin_left + plot_w / 2, height - 10) + " text-anchor=\"middle\"", x)
      << text_node(turned.str(), y);
}

std::string placeholder(const std::string& title, const std::string& why) {
  std::ostringstream svg;
  open_svg(svg, title);
  svg << text_node(at(margin_left + plot_w / 2, margin_top + plot_h / 2) + " text-anchor=\"middle\" fill=\"#666\"", why)
      << "</svg>\n";
  return svg.str();
}

} // namespace

std::string speedup_chart_svg(const job_entry& job) {
  const std::string title = job.row.name + ": speed-up over the baseline per iteration";
  if (!job.row.baseline_time_s || *job.row.baseline_time_s <= 0)
    return placeholder(title, "no baseline measurement yet");
  const double baseline = *job.row.baseline_time_s;
  // Every measured candidate (not the ablations: a method taken away, not a proposal) and the best
  // time known after each iteration (champions only ever improve it).
  std::vector<std::pair<std::int64_t, double>> candidates;
  std::vector<std::pair<std::int64_t, double>> best_so_far{{0, 1.0}};
  double best = baseline;
  std::size_t not_measured = 0;
  for (const auto& it : job.iterations) {
    for (const auto& b : it.branches) {
      if (b.row.kind == vocabulary::branch_kind::ablation)
        continue;
      if (b.best_time_s && *b.best_time_s > 0)
        candidates.emplace_back(it.row.number, baseline / *b.best_time_s);
      else
        ++not_measured;
    }
    if (it.champion_time_s && *it.champion_time_s < best)
      best = *it.champion_time_s;
    best_so_far.emplace_back(it.row.number, baseline / best);
  }
  const double max_x = std::max<double>(1, static_cast<double>(best_so_far.back().first));
  double top = 1.0;
  for (const auto& p : candidates)
    top = std::max(top, p.second);
  for (const auto& p : best_so_far)
    top = std::max(top, p.second);
  const auto y_ticks = round_ticks(top * 1.05);
  const double max_y = y_ticks.back();
  // Half an iteration of room on the right, so the last iteration's points are off the frame.
  auto x_of = [&](double x) { return margin_left + x / (max_x + 0.5) * plot_w; };
  auto y_of = [&](double y) { return margin_top + plot_h - y / max_y * plot_h; };

  std::ostringstream svg;
  open_svg(svg, title);
  for (double y : y_ticks)
    svg << "<line x1=\"" << margin_left << "\" x2=\"" << margin_left + plot_w << "\" y1=\"" << y_of(y)
        << "\" y2=\"" << y_of(y) << "\" stroke=\"#eee\"/>\n"
        << text_node(at(margin_left - 6, y_of(y) + 4) + " text-anchor=\"end\"", tick_text(y) + "x");
  const auto x_ticks = round_ticks(std::max(max_x, 5.0)); // iterations are whole: steps of 1 or more
  for (double x : x_ticks)
    if (x <= max_x)
      svg << text_node(at(x_of(x), margin_top + plot_h + 16) + " text-anchor=\"middle\"", tick_text(x));
  // The baseline: 1.0x, what every point is measured against.
  svg << "<line x1=\"" << margin_left << "\" x2=\"" << margin_left + plot_w << "\" y1=\"" << y_of(1.0)
      << "\" y2=\"" << y_of(1.0) << "\" stroke=\"#555\" stroke-dasharray=\"5,4\"/>\n"
      << text_node(at(margin_left + plot_w - 4, y_of(1.0) - 5) + " text-anchor=\"end\" fill=\"#555\"",
                   "baseline 1.00x");
  for (const auto& [x, y] : candidates)
    svg << "<circle cx=\"" << x_of(static_cast<double>(x)) << "\" cy=\"" << y_of(y)
        << "\" r=\"3.5\" fill=\"#9ecae1\" fill-opacity=\"0.8\" stroke=\"#3182bd\" stroke-width=\"0.8\"/>\n";
  // The best so far as a step line over the points: it holds until a champion improves it.
  svg << "<polyline fill=\"none\" stroke=\"#08519c\" stroke-width=\"2.5\" points=\"";
  for (std::size_t i = 0; i < best_so_far.size(); ++i) {
    const auto& [x, y] = best_so_far[i];
    if (i > 0)
      svg << x_of(static_cast<double>(x)) << "," << y_of(best_so_far[i - 1].second) << " ";
    svg << x_of(static_cast<double>(x)) << "," << y_of(y) << " ";
  }
  svg << "\"/>\n";
  const auto& [last_x, last_y] = best_so_far.back();
  svg << text_node(at(x_of(static_cast<double>(last_x)) - 4, y_of(last_y) - 8) +
                     " text-anchor=\"end\" font-weight=\"bold\" fill=\"#08519c\"",
                   "best " + vocabulary::speedup_text(last_y));
  // Legend, top left inside the plot.
  const double lx = margin_left + 10;
  const double ly = margin_top + 14;
  svg << "<circle cx=\"" << lx << "\" cy=\"" << ly - 4 << "\" r=\"3.5\" fill=\"#9ecae1\" stroke=\"#3182bd\"/>\n"
      << text_node(at(lx + 8, ly), "measured candidate (" + std::to_string(candidates.size()) + ")")
      << "<line x1=\"" << lx - 5 << "\" x2=\"" << lx + 5 << "\" y1=\"" << ly + 10 << "\" y2=\"" << ly + 10
      << "\" stroke=\"#08519c\" stroke-width=\"2.5\"/>\n"
      << text_node(at(lx + 8, ly + 14), "best so far");
  if (not_measured > 0)
    svg << text_node(at(lx + 8, ly + 28) + " fill=\"#666\"",
                     std::to_string(not_measured) + " not measured (failed or not run): no point");
  axis_labels(svg, "iteration (0 = baseline)", "speed-up over the baseline (x)");
  svg << "</svg>\n";
  return svg.str();
}

std::string roofline_chart_svg(const job_entry& job) {
  const std::string title = job.row.name + ": roofline (each diagnosed champion)";
  // Every iteration whose diagnosis placed its champion; the roofs are the latest one's peaks.
  struct point {
    std::int64_t iteration;
    double intensity; // FLOP per DRAM byte
    double flops;     // FLOP/s
  };
  std::vector<point> points;
  const iteration_gaps* g = nullptr;
  for (const auto& it : job.iterations)
    if (it.gaps.arithmetic_intensity && it.gaps.achieved_flops && it.gaps.peak_flops && it.gaps.peak_bandwidth &&
        *it.gaps.arithmetic_intensity > 0 && *it.gaps.achieved_flops > 0) {
      points.push_back({it.row.number, *it.gaps.arithmetic_intensity, *it.gaps.achieved_flops});
      g = &it.gaps;
    }
  if (!g)
    return placeholder(title, "no diagnosed iteration with FLOP and byte counts yet");
  const double peak_flops = *g->peak_flops;
  const double peak_bandwidth = *g->peak_bandwidth;
  const double ridge = peak_flops / peak_bandwidth; // FLOP/byte where the roofs meet
  double ai_lo = ridge, ai_hi = ridge, flops_lo = peak_flops;
  for (const auto& p : points) {
    ai_lo = std::min(ai_lo, p.intensity);
    ai_hi = std::max(ai_hi, p.intensity);
    flops_lo = std::min(flops_lo, p.flops);
  }
  const double x_lo = std::pow(10, std::floor(std::log10(ai_lo / 3)));
  const double x_hi = std::pow(10, std::ceil(std::log10(ai_hi * 3)));
  const double y_hi = std::pow(10, std::ceil(std::log10(peak_flops * 2)));
  const double y_lo = std::pow(10, std::floor(std::log10(std::min(peak_bandwidth * x_lo, flops_lo / 2))));
  auto x_of = [&](double x) {
    return margin_left + (std::log10(x) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)) * plot_w;
  };
  auto y_of = [&](double y) {
    return margin_top + plot_h -
           (std::log10(y) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo)) * plot_h;
  };
  std::ostringstream svg;
  open_svg(svg, title);
  for (double x = x_lo; x <= x_hi * 1.001; x *= 10)
    svg << "<line x1=\"" << x_of(x) << "\" x2=\"" << x_of(x) << "\" y1=\"" << margin_top << "\" y2=\""
        << margin_top + plot_h << "\" stroke=\"#eee\"/>\n"
        << text_node(at(x_of(x), margin_top + plot_h + 16) + " text-anchor=\"middle\"", tick_text(x));
  for (double y = y_lo; y <= y_hi * 1.001; y *= 10)
    svg << "<line x1=\"" << margin_left << "\" x2=\"" << margin_left + plot_w << "\" y1=\"" << y_of(y)
        << "\" y2=\"" << y_of(y) << "\" stroke=\"#eee\"/>\n"
        << text_node(at(margin_left - 6, y_of(y) + 4) + " text-anchor=\"end\"", decade_text(y));
  // The memory roof (DRAM bandwidth x intensity) up to the ridge, the compute roof after it.
  const double x_start = std::max(x_lo, y_lo / peak_bandwidth);
  svg << "<line x1=\"" << x_of(x_start) << "\" y1=\"" << y_of(peak_bandwidth * x_start) << "\" x2=\"" << x_of(ridge)
      << "\" y2=\"" << y_of(peak_flops) << "\" stroke=\"#d62728\" stroke-width=\"2\"/>\n"
      << "<line x1=\"" << x_of(ridge) << "\" y1=\"" << y_of(peak_flops) << "\" x2=\"" << x_of(x_hi) << "\" y2=\""
      << y_of(peak_flops) << "\" stroke=\"#ff7f0e\" stroke-width=\"2\"/>\n"
      << "<line x1=\"" << x_of(ridge) << "\" y1=\"" << y_of(peak_flops) << "\" x2=\"" << x_of(ridge) << "\" y2=\""
      << margin_top + plot_h << "\" stroke=\"#999\" stroke-dasharray=\"3,3\"/>\n"
      << text_node(at(x_of(x_hi) - 4, y_of(peak_flops) - 6) + " text-anchor=\"end\" fill=\"#ff7f0e\"",
                   "compute roof " + vocabulary::flop_rate_text(peak_flops) +
                       (g->precision.empty() ? std::string{} : " (" + g->precision + ")"))
      << text_node(at(x_of(ridge) - 4, margin_top + plot_h - 6) + " text-anchor=\"end\" fill=\"#777\"",
                   "ridge " + tick_text(ridge) + " FLOP/B");
  {
    // The memory roof's label, along its slope at a third of the way to the ridge.
    const double x_label = x_start * std::pow(ridge / x_start, 0.3);
    const double angle = std::atan2(y_of(peak_flops) - y_of(peak_bandwidth * x_start), x_of(ridge) - x_of(x_start));
    std::ostringstream turned;
    turned << "transform=\"translate(" << x_of(x_label) << "," << y_of(peak_bandwidth * x_label) - 6 << ") rotate("
           << angle * 180 / 3.14159265358979 << ")\" fill=\"#d62728\"";
    svg << text_node(turned.str(), "memory roof " + vocabulary::bandwidth_text(peak_bandwidth) + " (DRAM)");
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const bool latest = i + 1 == points.size();
    svg << "<circle cx=\"" << x_of(p.intensity) << "\" cy=\"" << y_of(p.flops) << "\" r=\"" << (latest ? 5 : 3.5)
        << "\" fill=\"" << (latest ? "#08519c" : "#9ecae1") << "\" stroke=\"#08519c\"/>\n";
    // Each point names its iteration; the latest one's figures go in the lower right corner,
    // below the roofs, where no line runs.
    svg << text_node(at(x_of(p.intensity) + 7, y_of(p.flops) + 4) + " font-size=\"9\" fill=\"#08519c\"",
                     std::to_string(p.iteration));
    if (latest)
      svg << text_node(at(margin_left + plot_w - 6, margin_top + plot_h - 22) + " text-anchor=\"end\" fill=\"#08519c\"",
                       "iteration " + std::to_string(p.iteration) + ": " + vocabulary::flop_rate_text(p.flops) +
                           " at " + tick_text(p.intensity) + " FLOP/B");
  }
  axis_labels(svg, "arithmetic intensity (FLOP per DRAM byte, log)", "achieved FLOP/s (log)");
  svg << "</svg>\n";
  return svg.str();
}

std::string chart_file_name(std::string_view job_name, std::string_view chart) {
  return storage::path_component(job_name) + "-" + std::string{chart} + ".svg";
}

expected<std::vector<std::string>, std::string> write_summary(const campaign_report& report) {
  std::vector<std::pair<std::string, std::string>> files{{"summary.md", render_markdown(report)}};
  for (const auto& job : report.jobs) {
    files.emplace_back(chart_file_name(job.row.name, "speedup"), speedup_chart_svg(job));
    files.emplace_back(chart_file_name(job.row.name, "roofline"), roofline_chart_svg(job));
  }
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    // A reader never sees half a summary.
    if (auto done = warpforge::files::write_file_atomically(report.run_dir / name, text); !done)
      return unexpected{done.error()};
    written.push_back(name);
  }
  return written;
}

} // namespace warpforge::report
