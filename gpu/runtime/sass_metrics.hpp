#pragma once
// CUPTI's SASS Metrics API (cupti_sass_metrics.h) for one launch inside the runner: the chip's
// SASS counters are listed, every counter sass_aggregates.hpp reads that the chip has is
// configured at GPU granularity (once per runner process: CUPTI 13.0 answers a second
// cuptiSassMetricsSetConfig after an unset with CUPTI_ERROR_OUT_OF_MEMORY, measured on an H100),
// the kernel is patched lazily (only what runs between enable and disable: the one launch),
// launched once, and the counts come back per instruction. Runner-only (warpforge_gpu_runtime);
// docs/measurement.md, "Metrics".
//
//   auto counts = collect_sass_counts(context, chip, [&] { return launch_and_wait(candidate); });
//   auto values = evaluate_sass_aggregates(names, counts->instructions, counts->collected);

#include "foundation/expected/expected.hpp"
#include "gpu/call_check.hpp"
#include "gpu/runtime/sass_aggregates.hpp"

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace warpforge::gpu {

struct sass_counts {
  std::set<std::string> collected;           // the counters configured (the chip has them)
  std::vector<sass_instruction> instructions; // one per patched instruction that reported
  std::set<std::string> functions;           // the functions CUPTI reported
  std::size_t dropped_records = 0;           // records CUPTI could not keep: the counts are short
};

/// Why collection stopped: a CUPTI call (its step), or the kernel's own launch.
struct sass_failure {
  std::string step;
  call_error error;
  bool in_launch = false; // the launch callback failed: the kernel's failure, not CUPTI's
};

/// Configures the counters (first call of the process), enables patching on `context`, calls
/// `launch` once (it must launch the kernel and wait), and gathers the counts by instruction.
expected<sass_counts, sass_failure> collect_sass_counts(CUcontext context, const std::string& chip,
                                                        const std::function<call_result()>& launch);

} // namespace warpforge::gpu
