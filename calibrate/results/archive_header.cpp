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
  out += line("value", format_value(r.value) + " " + r.unit);
  out += line("trials", std::to_string(r.stats.n) + " kept, " + std::to_string(r.stats.discarded) +
                            " throttled discarded");
  out += line("median / mean / stddev", format_value(r.stats.median) + " / " +
                                            format_value(r.stats.mean) + " / " +
                                            format_value(r.stats.stddev) + " " + r.unit);
  out += line("CV", format_percent(r.stats.cv));
  out += line("95% CI of the median", "[" + format_value(r.stats.ci95_low) + ", " +
                                          format_value(r.stats.ci95_high) + "] " + r.unit);
  if (r.known) {
    const auto delta = relative_delta(r.value, r.known);
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
