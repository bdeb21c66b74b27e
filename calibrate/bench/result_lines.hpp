#pragma once
// What a benchmark printed -> its value, its SM clock and its curve. The RESULT lines are read
// by program mode's parser (gpu/runner/program_run.hpp, parse_result_lines); this only gives
// the names their meaning:
//   value         the parameter, in the catalog's unit (exactly one per run)
//   sm_clock_mhz  the SM clock while measuring, MHz (clock64 over %globaltimer, in-kernel)
//   curve_x, curve_y  one point of a sweep (working-set bytes or the sweep's x -> cycles); a
//                 curve_x is always followed by its curve_y in the same line
//   raw_chase_cycles  a latency benchmark's second figure: the median step of a chase timed by a
//                 clock64 pair per step, chasing pointers (no address arithmetic; at most one)
//   index_chase_cycles  a latency benchmark's third figure: the same clocked steps chasing
//                 32-bit indices, j = A[j] (index-to-address arithmetic in every step), the
//                 published p-chase tables' method (at most one)
// Other names are allowed and ignored.

#include <optional>
#include <string>
#include <vector>

namespace warpforge::calibrate {

/// One point of a benchmark's sweep (the same two numbers as results' curve_point).
struct benchmark_curve_point {
  double x = 0; // the sweep's x: bytes of working set, or a stride in bytes, or warps
  double y = 0; // cycles (or the sweep's measured quantity)
};

struct benchmark_output {
  std::optional<double> value;                // the parameter, in the catalog's unit
  std::optional<double> sm_clock_mhz;         // MHz
  std::vector<benchmark_curve_point> curve;   // in printed order
  std::optional<double> raw_chase_cycles;     // cycles; latency benchmarks only
  std::optional<double> index_chase_cycles;   // cycles; latency benchmarks only
  std::string problem;                        // empty when the output is usable; else what is wrong
};

/// Reads a trial's stdout. A malformed RESULT line, a second value, raw or index chase figure, a curve_x without its
/// curve_y, a missing value, or a clock <= 0 is a `problem` (the parts that could be read are
/// still filled in).
benchmark_output read_output(const std::string& stdout_text);

} // namespace warpforge::calibrate
