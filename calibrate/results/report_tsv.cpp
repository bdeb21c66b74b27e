// render_tsv: the seed's measurements.tsv columns, one row per parameter (report.hpp).
#include "calibrate/results/report.hpp"

#include <cstdio>

namespace warpforge::calibrate {
namespace {

// A TSV field: tabs and line breaks would split the row, so they become spaces.
std::string field(std::string_view text) {
  std::string out{text};
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r')
      c = ' ';
  return out;
}

// Numbers keep 10 significant digits: enough for any measurement, short enough to read.
std::string number(double value) {
  char text[48];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// A statistic, or an empty field when it was not measured (the reason is the last column).
std::string number_if(bool measured, double value) { return measured ? number(value) : std::string{}; }

// The seed is Python: its booleans are spelled True / False.
std::string_view boolean(bool flag) { return flag ? "True" : "False"; }

} // namespace

std::string render_tsv(const std::vector<parameter_result>& results) {
  std::string out;
  for (std::string_view column : tsv_columns)
    out += (out.empty() ? "" : "\t") + std::string{column};
  out += '\n';
  for (const auto& r : results) {
    std::string notes;
    for (const auto& note : r.notes)
      notes += (notes.empty() ? "" : "; ") + note;
    const bool center = r.value && has_center(r.stats), spread = r.value && has_spread(r.stats);
    const bool interval = r.value && has_interval(r.stats);
    std::string reason = not_measured_reason(r);
    if (reason.empty())
      reason = missing_spread_reason(r.stats);
    const std::string fields[] = {
      field(r.name),
      r.value ? number(*r.value) : std::string{},
      field(r.unit),
      number_if(center, r.stats.mean),
      number_if(center, r.stats.median),
      number_if(spread, r.stats.stddev),
      number_if(spread, r.stats.cv),
      number_if(interval, r.stats.ci95_low),
      number_if(interval, r.stats.ci95_high),
      std::to_string(r.stats.n),
      std::string{to_string(r.result)},
      std::string{boolean(verdict_passed(r.counter_verdict))},
      std::string{boolean(verdict_passed(r.sass_verdict))},
      field(notes),
      field(r.measured_at),
      field(reason),
    };
    static_assert(std::size(fields) == std::size(tsv_columns));
    for (std::size_t i = 0; i < std::size(fields); ++i)
      out += (i == 0 ? "" : "\t") + fields[i];
    out += '\n';
  }
  return out;
}

} // namespace warpforge::calibrate
