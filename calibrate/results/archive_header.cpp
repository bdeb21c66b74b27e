// archive_header: the metadata on top of an archived passing benchmark (report.hpp).
#include "calibrate/results/number_format.hpp"
#include "calibrate/results/report.hpp"

namespace warpforge::calibrate {
namespace {

// One "// key: value" line; a value with line breaks continues on "//   " lines.
std::string line(std::string_view key, std::string_view value) {
  std::string out = "// " + std::string{key} + ": ";
  for (char c : value)
    out += c == '\n' ? std::string{"\n//   "} : std::string(1, c);
  return out + "\n";
}

std::string or_not_checked(std::string_view verdict) {
  return verdict.empty() ? std::string{"not checked"} : std::string{verdict};
}

} // namespace

std::string archive_header(const parameter_result& r) {
  std::string out = "// warpforge calibrate: archived benchmark (generated; the source follows)\n";
  out += line("parameter", r.name);
  out += line("status", to_string(r.result));
  // Only passing results are archived, and they have a value; still, nothing unmeasured is
  // written as a number here either.
  const std::string absent = "not measured (" + not_measured_reason(r) + ")";
  const bool center = r.value && has_center(r.stats), spread = r.value && has_spread(r.stats);
  const bool interval = r.value && has_interval(r.stats);
  const std::string no_spread = "not measured (" + missing_spread_reason(r.stats) + ")";
  out += line("value", r.value ? format_value(*r.value) + " " + r.unit : absent);
  out += line("trials", std::to_string(r.stats.n) + " kept, " + std::to_string(r.stats.discarded) +
                            " throttled discarded");
  out += line("median / mean / stddev",
              center ? format_value(r.stats.median) + " / " + format_value(r.stats.mean) + " / " +
                         (spread ? format_value(r.stats.stddev) : std::string{"-"}) + " " + r.unit
                     : absent);
  out += line("CV", spread ? format_percent(r.stats.cv) : no_spread);
  out += line("95% CI of the median", interval ? "[" + format_value(r.stats.ci95_low) + ", " +
                                                   format_value(r.stats.ci95_high) + "] " + r.unit
                                             : center ? no_spread : absent);
  if (r.known) {
    const auto delta = r.value ? relative_delta(*r.value, r.known) : std::nullopt;
    out += line("known value", format_value(r.known->value) + " " + r.unit + " (" + r.known->arch +
                                   ", " + r.known->source + ")" +
                                   (delta ? ", delta " + format_signed_percent(*delta) : ""));
  }
  out += line("SASS", or_not_checked(r.sass_verdict));
  out += line("counters", or_not_checked(r.counter_verdict));
  out += line("arch", r.arch.empty() ? "unknown" : r.arch);
  out += line("GPU", r.gpu_name.empty() ? "unknown" : r.gpu_name);
  if (!r.measured_at.empty())
    out += line("measured at", r.measured_at);
  if (!r.benchmark_file.empty())
    out += line("benchmark", r.benchmark_file);
  for (const auto& note : r.notes)
    out += line("note", note);
  return out + "\n";
}

} // namespace warpforge::calibrate
