// The launch attributes' arithmetic (gpu/runtime/launch_occupancy.hpp) on hand-worked cases: the
// CUDA occupancy calculator's rules (cuda_occupancy.h) on an H100's and a T4's limits, and one
// Nsight Compute report's published Occupancy section reproduced from its inputs.

#include "gpu/runtime/launch_occupancy.hpp"

#include <gtest/gtest.h>

#include <map>

namespace warpforge::gpu {
namespace {

// An H100 SXM as cudaDeviceGetAttribute reports it (sm_90, 132 SMs, 228 KiB shared per SM).
occupancy_device h100() {
  occupancy_device d;
  d.compute_major = 9;
  d.compute_minor = 0;
  d.warp_size = 32;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.registers_per_sm = 65536;
  d.registers_per_block = 65536;
  d.shared_bytes_per_sm = 233472;
  d.shared_bytes_per_block = 49152;
  d.shared_bytes_per_block_optin = 232448;
  d.reserved_shared_bytes_per_block = 1024;
  return d;
}

// A T4 (sm_75, 40 SMs): 1024 threads and 16 blocks per SM, no driver-reserved shared memory.
occupancy_device t4() {
  occupancy_device d;
  d.compute_major = 7;
  d.compute_minor = 5;
  d.warp_size = 32;
  d.sm_count = 40;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 1024;
  d.max_blocks_per_sm = 16;
  d.registers_per_sm = 65536;
  d.registers_per_block = 65536;
  d.shared_bytes_per_sm = 65536;
  d.shared_bytes_per_block = 49152;
  d.shared_bytes_per_block_optin = 65536;
  d.reserved_shared_bytes_per_block = 0;
  return d;
}

launch_occupancy computed(const occupancy_device& d, occupancy_kernel k, occupancy_launch l) {
  auto o = compute_launch_occupancy(d, k, l);
  EXPECT_TRUE(o) << o.error();
  return o ? *o : launch_occupancy{};
}

TEST(LaunchOccupancy, ATiledTransposeOnAnH100IsLimitedByWarps) {
  // 32x8 threads, 16 registers, a 32x33 float tile; 8192^2 elements in 32x32 tiles.
  auto o = computed(h100(), {16, 32 * 33 * 4}, {256 * 256, 256, 0, {}});
  // Registers: 16 * 32 = 512 per warp; 16384 per sub-partition / 512 = 32 warps, x4 = 128 warps
  // per SM, / 8 warps per block = 16 blocks.
  EXPECT_EQ(o.limit_registers, 16u);
  // Warps: 2048 / 32 = 64 warp slots / 8 = 8 blocks.
  EXPECT_EQ(o.limit_warps, 8u);
  EXPECT_EQ(o.limit_blocks, 32u);
  // Shared: 4224 + 1024 reserved = 5248 (a multiple of 128); 233472 / 5248 = 44.
  EXPECT_EQ(o.shared_bytes_per_block_allocated, 5248u);
  EXPECT_EQ(o.limit_shared_mem, 44u);
  EXPECT_EQ(o.active_blocks_per_sm, 8u);
  // 65536 blocks / (8 * 132) = 62.06 waves.
  EXPECT_DOUBLE_EQ(o.waves_per_sm, 65536.0 / (8.0 * 132.0));
}

TEST(LaunchOccupancy, RegistersAreAllocatedPerWarpInUnitsOf256PerSubPartition) {
  // 40 registers: 1280 per warp (5 units); 16384 / 1280 = 12 warps per sub-partition (not 12.8),
  // 48 per SM: one block of 32 warps.
  auto o = computed(h100(), {40, 0}, {1000, 1024, 0, {}});
  EXPECT_EQ(o.limit_registers, 1u);
  // 33 registers round up to 1280 per warp as well (33 * 32 = 1056 -> 1280).
  EXPECT_EQ(computed(h100(), {33, 0}, {1000, 1024, 0, {}}).limit_registers, 1u);
  // 32 registers: 1024 per warp, 16 warps per sub-partition, 64 per SM: two blocks.
  EXPECT_EQ(computed(h100(), {32, 0}, {1000, 1024, 0, {}}).limit_registers, 2u);
}

TEST(LaunchOccupancy, ABlockThatNeedsMoreRegistersThanABlockMayHaveGetsNoBlock) {
  // 72 registers x 1024 threads: 2304 per warp x 32 warps = 73728 > 65536 per block.
  auto o = computed(h100(), {72, 0}, {10, 1024, 0, {}});
  EXPECT_EQ(o.limit_registers, 0u);
  EXPECT_EQ(o.active_blocks_per_sm, 0u);
  EXPECT_EQ(o.waves_per_sm, 0.0);
  // The hardware's check rounds the warps up to the 4 sub-partitions: 200 registers x 9 warps is
  // 57600 registers, within the block's 65536, but 12 warps' worth (76800) is not.
  EXPECT_EQ(computed(h100(), {200, 0}, {10, 288, 0, {}}).limit_registers, 0u);
  // 8 warps pass both checks: 16384 / 6400 = 2 warps per sub-partition, 8 per SM: one block.
  EXPECT_EQ(computed(h100(), {200, 0}, {10, 256, 0, {}}).limit_registers, 1u);
}

TEST(LaunchOccupancy, SharedMemoryCountsTheDriversReserveAndTheAllocationUnit) {
  // 48 KiB dynamic: 49152 + 1024 = 50176 (a multiple of 128); 233472 / 50176 = 4.
  auto o = computed(h100(), {32, 0}, {132, 128, 49152, {}});
  EXPECT_EQ(o.dynamic_shared_bytes, 49152u);
  EXPECT_EQ(o.shared_bytes_per_block_allocated, 50176u);
  EXPECT_EQ(o.limit_shared_mem, 4u);
  // 100 bytes static rounds up with the reserve to 1152 (9 x 128): 233472 / 1152 = 202.
  EXPECT_EQ(computed(h100(), {32, 100}, {132, 128, 0, {}}).limit_shared_mem, 202u);
  // More than the opt-in maximum per block: no block fits.
  EXPECT_EQ(computed(h100(), {32, 0}, {132, 128, 232449, {}}).limit_shared_mem, 0u);
}

TEST(LaunchOccupancy, ABlockLargerThanTheDeviceAllowsGetsNoWarpSlots) {
  EXPECT_EQ(computed(h100(), {16, 0}, {1, 2048, 0, {}}).limit_warps, 0u);
  // A partial warp takes a whole warp slot: 33 threads are two warps, 64 / 2 = 32 blocks.
  EXPECT_EQ(computed(h100(), {16, 0}, {1, 33, 0, {}}).limit_warps, 32u);
}

TEST(LaunchOccupancy, ReproducesAPublishedNsightComputeOccupancySectionOfAT4) {
  // ncu on an sm_75 GPU with 40 SMs: 4064 blocks of 1024 threads, 22 registers, no shared memory.
  // Its report: Block Limit SM 16, Registers 2, Shared Mem 16, Warps 1; Waves Per SM 101.60.
  auto o = computed(t4(), {22, 0}, {4064, 1024, 0, {}});
  EXPECT_EQ(o.limit_blocks, 16u);
  EXPECT_EQ(o.limit_registers, 2u); // 22 * 32 = 704 -> 768 per warp; 16384 / 768 = 21; 84 / 32 = 2
  EXPECT_EQ(o.limit_shared_mem, 16u); // no shared memory: only the SM's block limit
  EXPECT_EQ(o.limit_warps, 1u);
  EXPECT_NEAR(o.waves_per_sm, 101.60, 0.005);
}

TEST(LaunchOccupancy, TheDriversCarveoutSetsTheSharedMemoryLimitAsNsightComputeReportsIt) {
  // ncu 2025.3 on an H100 (this repository's gpu_profile_metrics_tests), 256-thread blocks:
  // launch__shared_mem_config_size and launch__occupancy_limit_shared_mem.
  occupancy_launch naive{65536, 256, 0, 32768}; // examples/transpose, naive: no shared memory
  EXPECT_EQ(computed(h100(), {30, 0}, naive).limit_shared_mem, 32u); // 32768 / (0 + 1024)
  occupancy_launch row_sum{16384, 256, 0, 32768}; // examples/row_reduction: 1 KiB static
  EXPECT_EQ(computed(h100(), {31, 1024}, row_sum).limit_shared_mem, 16u); // 32768 / 2048
  occupancy_launch tiled{65536, 256, 0, 102400}; // the tiled transpose: a 32 x 33 float tile
  EXPECT_EQ(computed(h100(), {32, 4224}, tiled).limit_shared_mem, 19u); // 102400 / 5248
  // Without the launch's configuration: the whole 228 KiB, as the occupancy calculator assumes.
  EXPECT_EQ(computed(h100(), {32, 4224}, {65536, 256, 0, {}}).limit_shared_mem, 44u);
}

TEST(LaunchOccupancy, NsightValuesNameEveryLaunchAttributeInBaseUnits) {
  auto o = computed(h100(), {16, 4224}, {65536, 256, 0, {}});
  std::map<std::string, double> values;
  for (const auto& [name, value] : nsight_values(o)) {
    EXPECT_TRUE(is_launch_attribute(name)) << name;
    values[name] = value;
  }
  ASSERT_EQ(values.size(), 10u);
  EXPECT_EQ(values.at("launch__occupancy_limit_warps"), 8.0);
  EXPECT_EQ(values.at("launch__registers_per_thread"), 16.0);
  EXPECT_EQ(values.at("launch__shared_mem_per_block_static"), 4224.0);
  EXPECT_EQ(values.at("launch__grid_size"), 65536.0);
  EXPECT_EQ(values.at("launch__block_size"), 256.0);
  EXPECT_FALSE(is_launch_attribute("launch__occupancy_per_block_size"));
  EXPECT_FALSE(is_launch_attribute("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
}

TEST(LaunchOccupancy, AnUnknownArchitectureOrAZeroDivisorIsAnErrorNamingIt) {
  auto d = h100();
  d.compute_major = 20;
  auto unknown = compute_launch_occupancy(d, {16, 0}, {1, 32, 0, {}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("compute capability 20.0"), std::string::npos) << unknown.error();
  auto empty = compute_launch_occupancy(h100(), {16, 0}, {1, 0, 0, {}});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("block size is 0"), std::string::npos) << empty.error();
}

TEST(GranularityFor, FollowsTheOccupancyCalculatorsTables) {
  auto ampere = granularity_for(8, 0);
  ASSERT_TRUE(ampere);
  EXPECT_EQ(ampere->shared_unit_bytes, 128);
  EXPECT_EQ(ampere->register_unit, 256);
  EXPECT_EQ(ampere->sub_partitions, 4);
  EXPECT_EQ(ampere->max_registers_per_thread, 256);
  auto volta = granularity_for(7, 0);
  ASSERT_TRUE(volta);
  EXPECT_EQ(volta->shared_unit_bytes, 256);
  auto gp100 = granularity_for(6, 0);
  ASSERT_TRUE(gp100);
  EXPECT_EQ(gp100->sub_partitions, 2);
  EXPECT_EQ(gp100->max_registers_per_thread, 255);
  EXPECT_FALSE(granularity_for(2, 0));
}

} // namespace
} // namespace warpforge::gpu
