#pragma once
// CUPTI's SASS Metrics API (cupti_sass_metrics.h) for one launch inside the runner: the chip's
// SASS counters are listed, the wanted ones configured at GPU granularity, the kernel patched
// lazily (only what runs between enable and disable: the one launch), launched once, and every
// counter summed over the launch's patched instructions. sass_aggregates.hpp turns the sums into
// Nsight's smsp__sass_* values. Runner-only (warpforge_gpu_runtime); docs/measurement.md,
// "Metrics".
//
//   auto sums = collect_sass_counters(context, chip, sass_counters_for(metrics),
//                                     [&] { return launch_and_wait(candidate); });

#include "foundation/expected/expected.hpp"
#include "gpu/call_check.hpp"

#include <cuda.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpforge::gpu {

struct sass_counter_sums {
  std::set<std::string> chip_counters;   // every SASS counter cuptiSassMetricsGetMetrics lists
  std::map<std::string, double> totals;  // each configured counter -> sum over instructions
  std::set<std::string> functions;       // the functions CUPTI patched and reported
  std::size_t records = 0;               // instruction records flushed
};

/// Why collection stopped: a CUPTI call (its step), or the kernel's own launch.
struct sass_failure {
  std::string step;
  call_error error;
  bool in_launch = false; // the launch callback failed: the kernel's failure, not CUPTI's
};

/// Lists the chip's counters, collects those of `wanted` the chip has (none: no launch), and
/// calls `launch` once in between (it must launch the kernel and wait for it).
expected<sass_counter_sums, sass_failure> collect_sass_counters(CUcontext context, const std::string& chip,
                                                                const std::vector<std::string>& wanted,
                                                                const std::function<call_result()>& launch);

} // namespace warpforge::gpu
