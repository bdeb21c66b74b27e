#pragma once
// What a launch may ask of the device, in one place: the limits read from device 0 and the
// constants the runner applies when it launches (gpu/runtime/kernel_launch.cpp). Runner-only.

#include <cstdint>

namespace warpforge::gpu {

/// What the launch checks need to know about device 0 (read once by open_device).
struct device_limits {
  int shared_optin_bytes = 0; // bytes of shared memory a block may opt in to
  int l2_bytes = 0;           // bytes of L2
  int sm_count = 0;           // streaming multiprocessors (sizes the check kernels' grids)
  int major = 0;              // compute capability, e.g. 9 and 0 for sm_90
  int minor = 0;
};

/// Dynamic shared memory a kernel may use without opting in (bytes per block).
inline constexpr std::uint32_t default_dynamic_smem_limit_bytes = 48 * 1024;

/// The L2 flush of cold mode writes this many times the L2 size.
inline constexpr std::uint64_t l2_flush_size_factor = 2;

} // namespace warpforge::gpu
