#pragma once
// The shared memory the driver configured per SM for one launch, read with CUPTI's Activity API
// (a concurrent-kernel record's sharedMemoryExecuted, "shared memory size set by the driver"):
// what Nsight Compute reports as launch__shared_mem_config_size and divides by a block's shared
// memory for launch__occupancy_limit_shared_mem. The driver picks this carveout per launch (on
// an H100, 32 KiB for kernels with up to 2 KiB per block, 100 KiB for 5 KiB); no attribute
// query gives it. Runner-only (warpforge_gpu_runtime).
//
//   auto bytes = driver_shared_memory_config([&] { return launch_and_wait(candidate); });

#include "foundation/expected/expected.hpp"
#include "gpu/call_check.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace warpforge::gpu {

/// Calls `launch` once (it must launch the kernel and wait) with kernel activity records on; the
/// record's shared memory configuration in bytes. The error names the step that failed (a
/// failure of `launch` itself says so first: "the launch: …").
expected<std::uint64_t, std::string> driver_shared_memory_config(const std::function<call_result()>& launch);

} // namespace warpforge::gpu
