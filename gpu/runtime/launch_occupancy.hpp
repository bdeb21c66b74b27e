#pragma once
// Nsight Compute's launch__* attributes of one launch, computed from what the driver says about
// the device and the kernel (docs/measurement.md, "Metrics": launch attributes). Plain C++ (no
// CUDA here): the runner fills the inputs from cudaDeviceGetAttribute and cuFuncGetAttribute
// (gpu/runtime/launch_attributes.cpp) and cross-checks the result against
// cuOccupancyMaxActiveBlocksPerMultiprocessor; the arithmetic is unit-tested on the CPU.
//
//   auto occupancy = compute_launch_occupancy(device, kernel, launch);   // expected<…, string>
//   for (auto& [name, value] : nsight_values(*occupancy)) result.values[name] = value;
//
// The limits are the CUDA occupancy calculator's (cuda_occupancy.h of the CUDA toolkit,
// cudaOccMaxBlocksPerSM{Warps,Regs,Smem}Limit), which is what Nsight Compute's "Block Limit"
// rows report: blocks per SM allowed by each resource alone; the theoretical blocks per SM are
// their minimum. Shared memory per SM is the carveout the driver configured for the launch when
// the caller knows it (ncu divides that configuration by a block's allocation), else the whole
// configurable size (the calculator's default carveout).

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// The device, as the driver reports it (cudaDeviceGetAttribute names in the comments).
struct occupancy_device {
  int compute_major = 0;                          // cudaDevAttrComputeCapabilityMajor
  int compute_minor = 0;                          // cudaDevAttrComputeCapabilityMinor
  int warp_size = 0;                              // threads, cudaDevAttrWarpSize
  int sm_count = 0;                               // cudaDevAttrMultiProcessorCount
  int max_threads_per_block = 0;                  // cudaDevAttrMaxThreadsPerBlock
  int max_threads_per_sm = 0;                     // cudaDevAttrMaxThreadsPerMultiProcessor
  int max_blocks_per_sm = 0;                      // cudaDevAttrMaxBlocksPerMultiprocessor
  int registers_per_sm = 0;                       // 32-bit registers, ...MaxRegistersPerMultiprocessor
  int registers_per_block = 0;                    // ...MaxRegistersPerBlock
  std::uint64_t shared_bytes_per_sm = 0;          // ...MaxSharedMemoryPerMultiprocessor
  std::uint64_t shared_bytes_per_block = 0;       // ...MaxSharedMemoryPerBlock (no opt-in)
  std::uint64_t shared_bytes_per_block_optin = 0; // ...MaxSharedMemoryPerBlockOptin
  std::uint64_t reserved_shared_bytes_per_block = 0; // ...ReservedSharedMemoryPerBlock (driver's)
};

/// The kernel, as cuFuncGetAttribute reports it.
struct occupancy_kernel {
  int registers_per_thread = 0;             // CU_FUNC_ATTRIBUTE_NUM_REGS
  std::uint64_t static_shared_bytes = 0;    // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
};

/// The launch.
struct occupancy_launch {
  std::uint64_t grid_blocks = 0;            // x * y * z
  std::uint64_t block_threads = 0;          // x * y * z
  std::uint64_t dynamic_shared_bytes = 0;   // per block, as launched
  /// Bytes of shared memory per SM the driver configured for this launch (its carveout,
  /// kernel_activity.hpp; ncu's launch__shared_mem_config_size); none: the device's maximum, as
  /// the occupancy calculator assumes at the default carveout.
  std::optional<std::uint64_t> shared_config_bytes_per_sm;
};

/// The allocation constants the driver does not report, per architecture, from the CUDA
/// toolkit's cuda_occupancy.h (cudaOccRegAllocationGranularity, cudaOccSMemAllocationGranularity,
/// cudaOccSubPartitionsPerMultiprocessor, cudaOccRegAllocationMaxPerThread).
struct allocation_granularity {
  int register_unit = 0;          // registers per warp are allocated in units of this many
  int shared_unit_bytes = 0;      // shared memory per block is allocated in units of this many
  int sub_partitions = 0;         // SM sub-partitions; registers are split evenly among them
  int max_registers_per_thread = 0;
};

/// The constants for compute capability major.minor; an error for an architecture
/// cuda_occupancy.h does not know (names the capability).
expected<allocation_granularity, std::string> granularity_for(int compute_major, int compute_minor);

/// Nsight Compute's launch attributes of one launch.
struct launch_occupancy {
  std::uint64_t limit_registers = 0;     // blocks per SM the register file allows
  std::uint64_t limit_shared_mem = 0;    // blocks per SM shared memory allows
  std::uint64_t limit_warps = 0;         // blocks per SM the warp slots allow
  std::uint64_t limit_blocks = 0;        // blocks per SM the hardware allows
  std::uint64_t active_blocks_per_sm = 0; // the minimum of the four: theoretical blocks per SM
  std::uint64_t shared_bytes_per_block_allocated = 0; // static + dynamic + reserved, rounded up
  int registers_per_thread = 0;
  std::uint64_t static_shared_bytes = 0;
  std::uint64_t dynamic_shared_bytes = 0;
  std::uint64_t grid_size = 0;           // blocks
  std::uint64_t block_size = 0;          // threads
  double waves_per_sm = 0;               // grid_size / (active_blocks_per_sm * sm_count)
};

/// The limits for `launch` of `kernel` on `device`. An error: the device is unknown to the
/// granularity table, or a field the arithmetic divides by is zero (names it).
expected<launch_occupancy, std::string> compute_launch_occupancy(const occupancy_device& device,
                                                                 const occupancy_kernel& kernel,
                                                                 const occupancy_launch& launch);

/// The Nsight metric names and values (launch__occupancy_limit_registers, …,
/// launch__waves_per_multiprocessor) in ncu's base units (blocks, registers, bytes, threads).
std::vector<std::pair<std::string, double>> nsight_values(const launch_occupancy& occupancy);

/// Whether `name` is one of the launch attributes nsight_values gives.
bool is_launch_attribute(const std::string& name);

} // namespace warpforge::gpu
