#pragma once
// The built-in calibration benchmarks: one standalone CUDA program (with main, built by nvcc)
// per priority 1-3 parameter of the catalog (calibrate/data/catalog.toml), compiled into the
// library. Each program prints program-mode RESULT lines (calibrate/bench/result_lines.hpp):
//
//   RESULT: value=<the parameter in the catalog's unit> sm_clock_mhz=<SM clock while measuring>
//   RESULT: curve_x=<x> curve_y=<cycles>          (sweeps only)
//
// One process run is one trial; it warms up by itself and takes no arguments. The sources live in
// calibrate/bench/kernels/ and share a few headers (common.cuh, chain.cuh, ...); `source` here is
// the program with those headers pasted in, so it builds as one file in any directory:
//   nvcc -O3 -arch=<arch> -o bench <file>

#include "foundation/expected/expected.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

struct benchmark {
  std::string parameter;               // the catalog's name: "fp32_fma_latency"
  std::string file;                    // "kernels/fp32_fma_latency.cu" (under calibrate/bench/)
  std::string_view source;             // the self-contained program (headers pasted in)
  std::string arch = "sm_90";          // nvcc -arch; "sm_90a" where wgmma is used
  // What its SASS must contain, as sass::check_opcodes specs: an opcode and the modifiers it
  // must carry, in any order ("HMMA.16816.F32" matches HMMA.16816.F32.BF16 too; case ignored).
  std::vector<std::string> required_sass;
  std::vector<std::string> counters;   // Nsight Compute metrics that corroborate the value
};

/// Every built-in benchmark, in catalog order (priority 1, then 2, then 3).
const std::vector<benchmark>& built_in_benchmarks();

/// The benchmark for a catalog parameter, or nullptr when there is no built-in one.
const benchmark* find_benchmark(std::string_view parameter);

/// The headers the sources may include ("common.cuh" -> its text), as compiled in.
std::vector<std::pair<std::string, std::string_view>> benchmark_headers();

/// `source` with every `#include "<header>.cuh"` line replaced by that header's text (each
/// header once; its `#pragma once` dropped). Fails naming the line of an include of a header
/// that is not one of benchmark_headers().
expected<std::string, std::string> inline_headers(std::string_view source);

} // namespace warpforge::calibrate
