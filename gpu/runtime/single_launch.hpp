#pragma once
// kernels[0] of a race, ready for single launches on the first seed's inputs, made exactly as
// run_race makes them (device-generated inputs from the workspace's cache, fresh copies, poisoned
// outputs): what `warpforge-runner --execute` and profile_candidate launch. Runner-only.
//
//   single_launch one;
//   if (auto failure = prepare_single_launch(*workspace, request, one)) return *failure;
//   launch(one.kernel, one.params->data(), workspace->stream());
//   one.refresh();                      // the same inputs again (user-replay profiling)
//   workspace->evict_l2_clean();        // ... read from DRAM, not from the L2
//
// With buffer_home::own the launch gets buffers of its own instead of the workspace's working set
// of the current problem, so that the kernels of several problems can be ready at once (a batch of
// profiles, range_profiler.hpp).

#include "gpu/runner/race_request.hpp"
#include "gpu/runtime/device_workspace.hpp"
#include "gpu/runtime/kernel_module.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// Whose working buffers a single launch runs on.
enum class buffer_home : std::uint8_t {
  workspace, // the workspace's, of its current problem (one launch ready at a time)
  own,       // its own, freed with it
};

struct single_launch {
  device_workspace* workspace = nullptr;
  const race_request* request = nullptr;
  loaded_kernel kernel;
  pristine_inputs inputs;               // seeds[0]'s
  std::vector<device_memory> own;       // buffer_home::own: by argument index (empty for scalars)
  std::vector<void*> buffers;           // the working buffers
  std::unique_ptr<kernel_params> params;

  /// Fresh copies of the inputs, poisoned outputs (queued on the workspace's stream).
  std::optional<launch_failure> refresh();
};

/// Loads request.kernels[0] and fills its buffers from request.seeds[0]. The failure is the
/// kernel's (not_supported when the device cannot run it, runtime_error otherwise).
std::optional<launch_failure> prepare_single_launch(device_workspace& workspace, const race_request& request,
                                                    single_launch& out, buffer_home home = buffer_home::workspace);

/// The device bytes a launch of `request` prepared with buffer_home::own holds: its buffers, and
/// the pristine copy of each input.
std::size_t own_launch_bytes(const race_request& request);

/// One launch of `one`, waited for (no watchdog: --execute and the profiler are the coordinator's
/// to stop).
call_result launch_and_wait(single_launch& one);

} // namespace warpforge::gpu
