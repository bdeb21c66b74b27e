#pragma once
// Nsight Compute's launch__* attributes of a loaded kernel's launch, read inside the runner: the
// device's limits (cudaDeviceGetAttribute), the function's registers and static shared memory
// (cuFuncGetAttribute), the launch geometry, and the occupancy arithmetic of
// launch_occupancy.hpp; the resulting blocks per SM are cross-checked against the driver's
// cuOccupancyMaxActiveBlocksPerMultiprocessor. Runner-only (warpforge_gpu_runtime).
//
//   auto attributes = read_launch_attributes(candidate.kernel, carveout);   // after load_kernel
//   if (attributes) for (auto& [name, value] : nsight_values(attributes->occupancy)) ...

#include "foundation/expected/expected.hpp"
#include "gpu/runtime/kernel_module.hpp"
#include "gpu/runtime/launch_occupancy.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace warpforge::gpu {

struct launch_attributes {
  launch_occupancy occupancy;
  int driver_active_blocks_per_sm = 0; // cuOccupancyMaxActiveBlocksPerMultiprocessor's answer
  std::string note;                    // empty, or how the driver's answer differs from ours
};

/// The attributes of `kernel`'s launch (its `launch` geometry) on device 0, with
/// `shared_config_bytes` the shared memory per SM the driver configured for it
/// (kernel_activity.hpp; none: the device's maximum). The error names the call or the input that
/// failed.
expected<launch_attributes, std::string> read_launch_attributes(const loaded_kernel& kernel,
                                                                std::optional<std::uint64_t> shared_config_bytes);

} // namespace warpforge::gpu
