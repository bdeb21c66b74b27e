// Two small SVG charts per job, written beside summary.md: the speed-up over the baseline per
// iteration, and where the latest champion sits on the roofline (log-log: arithmetic intensity
// against achieved FLOP/s, under the DRAM slope and the compute ceiling). Plain SVG text, no
// dependency: any browser or Markdown viewer shows them. Every text goes through text_node, which
// escapes it (markup_text.hpp): a job's name is shown, never run.

#include "report/campaign_report.hpp"
#include "report/markup_text.hpp"

#include "files/atomic_write.hpp"
#include "storage/run_directory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace warpforge::report {

namespace {

constexpr double width = 520;
constexpr double height = 320;
constexpr double margin_left = 64;
constexpr double margin_right = 20;
constexpr double margin_top = 36;
constexpr double margin_bottom = 48;
constexpr double plot_w = width - margin_left - margin_right;
constexpr double plot_h = height - margin_top - margin_bottom;

std::string number(double v, const char* format = "%.3g") {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
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
  turned << "transform=\"translate(14," << margin_top + plot_h / 2 << ") rotate(-90)\" text-anchor=\"middle\"";
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
  if (!job.row.baseline_time_s)
    return placeholder(title, "no baseline measurement yet");
  // The best time known after each iteration (champions only ever improve it).
  std::vector<std::pair<std::int64_t, double>> points{{0, 1.0}};
  double best = *job.row.baseline_time_s;
  for (const auto& it : job.iterations) {
    if (it.champion_time_s && *it.champion_time_s < best)
      best = *it.champion_time_s;
    points.emplace_back(it.row.number, *job.row.baseline_time_s / best);
  }
  const double max_x = std::max<double>(1, static_cast<double>(points.back().first));
  double max_y = 1.0;
  for (const auto& p : points)
    max_y = std::max(max_y, p.second);
  max_y *= 1.1;
  auto x_of = [&](double x) { return margin_left + x / max_x * plot_w; };
  auto y_of = [&](double y) { return margin_top + plot_h - y / max_y * plot_h; };

  std::ostringstream svg;
  open_svg(svg, title);
  for (int tick = 0; tick <= 4; ++tick) {
    const double y = max_y * tick / 4;
    svg << "<line x1=\"" << margin_left << "\" x2=\"" << margin_left + plot_w << "\" y1=\"" << y_of(y)
        << "\" y2=\"" << y_of(y) << "\" stroke=\"#eee\"/>\n"
        << text_node(at(margin_left - 6, y_of(y) + 4) + " text-anchor=\"end\"", number(y, "%.2fx"));
  }
  svg << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
  for (const auto& [x, y] : points)
    svg << x_of(static_cast<double>(x)) << "," << y_of(y) << " ";
  svg << "\"/>\n";
  for (const auto& [x, y] : points)
    svg << "<circle cx=\"" << x_of(static_cast<double>(x)) << "\" cy=\"" << y_of(y)
        << "\" r=\"3\" fill=\"#1f77b4\"/>\n"
        << text_node(at(x_of(static_cast<double>(x)), margin_top + plot_h + 16) + " text-anchor=\"middle\"",
                     std::to_string(x));
  const auto& [last_x, last_y] = points.back();
  svg << text_node(at(x_of(static_cast<double>(last_x)) - 4, y_of(last_y) - 8) +
                     " text-anchor=\"end\" font-weight=\"bold\"",
                   number(last_y, "%.2fx"));
  axis_labels(svg, "iteration (0 = baseline)", "speed-up");
  svg << "</svg>\n";
  return svg.str();
}

std::string roofline_chart_svg(const job_entry& job) {
  const std::string title = job.row.name + ": roofline position of the latest champion";
  const iteration_gaps* g = nullptr;
  for (auto it = job.iterations.rbegin(); it != job.iterations.rend() && !g; ++it)
    if (it->gaps.arithmetic_intensity && it->gaps.achieved_flops && it->gaps.peak_flops &&
        it->gaps.peak_bandwidth)
      g = &it->gaps;
  if (!g)
    return placeholder(title, "no diagnosed iteration with FLOP and byte counts yet");
  const double ridge = *g->peak_flops / *g->peak_bandwidth; // FLOP/byte where the roofs meet
  const double ai = std::max(*g->arithmetic_intensity, 1e-6);
  const double x_lo = std::pow(10, std::floor(std::log10(std::min(ai, ridge) / 10)));
  const double x_hi = std::pow(10, std::ceil(std::log10(std::max(ai, ridge) * 10)));
  const double y_hi = std::pow(10, std::ceil(std::log10(*g->peak_flops * 1.5)));
  const double y_lo = std::pow(10, std::floor(std::log10(std::min(*g->peak_bandwidth * x_lo,
                                                                    std::max(*g->achieved_flops, 1.0)))));
  auto x_of = [&](double x) {
    return margin_left + (std::log10(x) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)) * plot_w;
  };
  auto y_of = [&](double y) {
    return margin_top + plot_h -
           (std::log10(y) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo)) * plot_h;
  };
  std::ostringstream svg;
  open_svg(svg, title);
  // The roof: min(peak_bandwidth * x, peak_flops), drawn at its two ends and the ridge.
  svg << "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" points=\"" << x_of(x_lo) << ","
      << y_of(*g->peak_bandwidth * x_lo) << " " << x_of(ridge) << "," << y_of(*g->peak_flops) << " "
      << x_of(x_hi) << "," << y_of(*g->peak_flops) << "\"/>\n";
  svg << "<circle cx=\"" << x_of(ai) << "\" cy=\"" << y_of(std::max(*g->achieved_flops, y_lo))
      << "\" r=\"5\" fill=\"#1f77b4\"/>\n"
      << text_node(at(x_of(ai) + 8, y_of(std::max(*g->achieved_flops, y_lo)) - 6),
                   number(*g->achieved_flops / 1e9) + " GFLOP/s at " + number(ai) + " FLOP/B");
  for (double x = x_lo; x <= x_hi * 1.001; x *= 10)
    svg << text_node(at(x_of(x), margin_top + plot_h + 16) + " text-anchor=\"middle\"", number(x));
  for (double y = y_lo; y <= y_hi * 1.001; y *= 10)
    svg << text_node(at(margin_left - 6, y_of(y) + 4) + " text-anchor=\"end\"", number(y / 1e9));
  axis_labels(svg, "arithmetic intensity (FLOP per DRAM byte)", "GFLOP/s");
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
