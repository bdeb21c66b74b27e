#include "calibrate/bench/result_lines.hpp"

#include "gpu/runner/program_run.hpp"

namespace warpforge::calibrate {
namespace {

void note(benchmark_output& out, const std::string& problem) {
  if (out.problem.empty())
    out.problem = problem;
}

} // namespace

benchmark_output read_output(const std::string& stdout_text) {
  benchmark_output out;
  const auto values = gpu::parse_result_lines(stdout_text);
  if (!values) {
    const auto& error = values.error();
    out.problem = "output line " + std::to_string(error.line) + " (" + error.text +
                  "): " + error.message;
    return out;
  }
  const auto& pairs = *values;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [name, number] = pairs[i];
    if (name == "value") {
      if (out.value)
        note(out, "more than one RESULT value");
      out.value = number;
    } else if (name == "raw_chase_cycles") {
      if (out.raw_chase_cycles)
        note(out, "more than one RESULT raw_chase_cycles");
      out.raw_chase_cycles = number;
    } else if (name == "index_chase_cycles") {
      if (out.index_chase_cycles)
        note(out, "more than one RESULT index_chase_cycles");
      out.index_chase_cycles = number;
    } else if (name == "sm_clock_mhz") {
      out.sm_clock_mhz = number;
    } else if (name == "curve_x") {
      if (i + 1 >= pairs.size() || pairs[i + 1].name != "curve_y") {
        note(out, "a curve_x with no curve_y after it");
        continue;
      }
      out.curve.push_back({number, pairs[i + 1].value});
      ++i;
    } else if (name == "curve_y") {
      note(out, "a curve_y with no curve_x before it");
    }
  }
  if (!out.value)
    note(out, "no RESULT value");
  if (out.sm_clock_mhz && *out.sm_clock_mhz <= 0)
    note(out, "an SM clock of " + std::to_string(*out.sm_clock_mhz) + " MHz");
  return out;
}

} // namespace warpforge::calibrate
