#pragma once
// One parameter's outcome in a calibrate run: what every report, export, chart and archive header
// is made from. The engine fills it; nothing here measures.

#include "calibrate/catalog.hpp"
#include "calibrate/results/knee.hpp"
#include "calibrate/results/status.hpp"
#include "calibrate/results/trials.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

struct parameter_result {
  std::string name;                 // the catalog's parameter name ("fp32_fma_latency")
  std::string unit;                 // the catalog's unit ("cycles", "GB/s", ...)
  status result = status::no_data;
  trial_stats stats;                // over the kept trials (empty when nothing was timed)
  // The parameter's unit: the reported value (the median of the kept trials; for a cache size each
  // trial's value is read from its curve by the catalog's size_from). nullopt: nothing was measured (no GPU, a build failure,
  // a deferral, no usable trial); not_measured_reason says why. Never 0 for "not measured".
  std::optional<double> value;
  std::optional<known_value> known; // the published value for this arch, when the catalog has one
  // Verdict texts. By convention a text starting with "PASS" or "ok" (any case) means validated,
  // anything else is the reason it was not, and "" means not checked (see verdict_passed).
  std::string sass_verdict;         // the SASS gate: "PASS" or the missing opcode
  std::string counter_verdict;      // the profiler counters (CUPTI, else ncu)
  std::string arch;                 // "sm_90a": the target the benchmark was built for
  std::string gpu_name;             // "NVIDIA H100 80GB HBM3"
  std::vector<std::string> notes;   // judge()'s notes, then the engine's
  std::vector<curve_point> curve;   // a sweep's raw points (bytes -> cycles), kept for the charts
  std::string benchmark_file;       // "kernels/fp32_fma_latency.cu": where the source came from
  std::string measured_at;          // ISO-8601 UTC ("2026-11-25T21:04:05Z"); "" when unknown

  bool operator==(const parameter_result&) const = default;
};

/// Whether the parameter has a measured value.
bool was_measured(const parameter_result& result);

/// Why `result` has no value, one sentence for a report ("built and SASS-checked; not run: no
/// GPU"): the engine's last note (it appends the reason it stopped last), else what the status
/// means. "" when the value was measured.
std::string not_measured_reason(const parameter_result& result);

/// Whether a verdict text means "validated": it starts with "PASS" or "ok", in any case.
bool verdict_passed(std::string_view verdict_text);

} // namespace warpforge::calibrate
