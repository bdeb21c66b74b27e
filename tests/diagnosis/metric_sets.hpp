#pragma once
// Recorded metric sets for the diagnosis tests: what the schema keys would hold for a few kernels
// on an H100 SXM (ratios 0..1, seconds, bytes). The numbers are hand-made to be plausible for each
// kernel, not captured; the ncu fixture (fixtures/ncu_raw_copy_transpose.csv) carries the same
// copy and transpose launches through the CSV path.

#include "diagnosis/gpu_specs.hpp"
#include "diagnosis/metric_values.hpp"

#include <filesystem>
#include <string_view>

namespace warpforge::diagnosis::testing {

inline std::filesystem::path fixture(std::string_view name) {
  return std::filesystem::path{WARPFORGE_SOURCE_DIR} / "tests" / "diagnosis" / "fixtures" / name;
}

/// An H100 SXM as the runner reports it: 132 SMs, 2619 MHz memory clock, 5120-bit bus.
inline device_properties h100_sxm_device() {
  return {"NVIDIA H100 80GB HBM3", 132, 1980000, 2619000, 5120, 52428800};
}

/// y[i] = x[i] over 64 Mi floats, one element per thread, 256 threads per block: DRAM-bound,
/// perfectly coalesced, waiting on global loads.
inline metric_values copy_kernel() {
  return {
    {"duration", 178.02e-6},
    {"sm_throughput", 0.1721},
    {"memory_throughput", 0.9104},
    {"dram_throughput", 0.9104},
    {"sm_active", 0.99},
    {"ipc", 0.28},
    {"fp32_pipe", 0.0},
    {"dram_bytes_read", 268.44e6},
    {"dram_bytes_write", 268.44e6},
    {"l1_hit_rate", 0.0},
    {"l2_hit_rate", 0.5001},
    {"global_load_requests", 2097152},
    {"global_load_sectors", 8388608},
    {"global_store_requests", 2097152},
    {"global_store_sectors", 8388608},
    {"global_load_efficiency", 1.0},
    {"global_store_efficiency", 1.0},
    {"shared_bank_conflicts_load", 0},
    {"shared_bank_conflicts_store", 0},
    {"local_load_instructions", 0},
    {"local_store_instructions", 0},
    {"achieved_occupancy", 0.863},
    {"theoretical_occupancy", 1.0},
    {"occupancy_limit_registers", 16},
    {"occupancy_limit_shared_mem", 32},
    {"occupancy_limit_warps", 8},
    {"occupancy_limit_blocks", 32},
    {"registers_per_thread", 16},
    {"grid_size", 262144},
    {"block_size", 256},
    {"waves_per_sm", 248.24},
    {"stall_long_scoreboard", 0.624},
    {"stall_short_scoreboard", 0.0012},
    {"stall_mio_throttle", 0.0041},
    {"stall_math_pipe_throttle", 0.0},
    {"stall_barrier", 0.0},
    {"stall_lg_throttle", 0.121},
    {"stall_wait", 0.0302},
    {"stall_membar", 0.0},
  };
}

/// out[x][y] = in[y][x] for 4096 x 4096 floats with 32 x 32 blocks: reads along rows (coalesced),
/// writes down columns (each warp's 32 stores hit 32 sectors: 12.5% of each sector used). No
/// floating-point instruction at all (issue 11 saw "zero FLOPs" on the H100): the FLOP counters
/// read 0 and the FP32 pipe is idle.
inline metric_values naive_transpose() {
  return {
    {"ffma_instructions", 0},
    {"fadd_instructions", 0},
    {"fmul_instructions", 0},
    {"hfma_instructions", 0},
    {"hadd_instructions", 0},
    {"hmul_instructions", 0},
    {"dfma_instructions", 0},
    {"dadd_instructions", 0},
    {"dmul_instructions", 0},
    {"fp32_pipe", 0.0},
    {"duration", 89.6e-6},
    {"sm_throughput", 0.124},
    {"memory_throughput", 0.784},
    {"dram_throughput", 0.5512},
    {"sm_active", 0.98},
    {"ipc", 0.21},
    {"dram_bytes_read", 67.11e6},
    {"dram_bytes_write", 67.11e6},
    {"l1_hit_rate", 0.0},
    {"l2_hit_rate", 0.6177},
    {"global_load_requests", 524288},
    {"global_load_sectors", 2097152},
    {"global_store_requests", 524288},
    {"global_store_sectors", 16777216},
    {"global_load_efficiency", 1.0},
    {"global_store_efficiency", 0.125},
    {"shared_bank_conflicts_load", 0},
    {"shared_bank_conflicts_store", 0},
    {"local_load_instructions", 0},
    {"local_store_instructions", 0},
    {"achieved_occupancy", 0.8275},
    {"theoretical_occupancy", 1.0},
    {"occupancy_limit_registers", 4},
    {"occupancy_limit_warps", 2},
    {"registers_per_thread", 16},
    {"grid_size", 16384},
    {"waves_per_sm", 62.06},
    {"stall_long_scoreboard", 0.2011},
    {"stall_lg_throttle", 0.4532},
    {"stall_wait", 0.041},
  };
}

/// The naive SGEMM of examples/sgemm, C = A x B for 2048^3 f32, one thread per element of C, as
/// issue 11 quotes it on an H100 SXM: 6.9 TFLOP/s at the end of a tuning campaign. BUILT FROM
/// THOSE FIGURES, not captured: 2048^3 FFMA = 1.718e10 FLOP at 6.9e12 FLOP/s is 2.49 ms; A and B
/// are read once from DRAM and C written once (the 48 MiB fit the 50 MiB L2), 50.3 MB. The rest is
/// what such a kernel shows: L1-bound loads, an FP32 pipe a fifth busy, waits on global loads.
/// `with_flop_counters = false` is the same launch as CUPTI's range profiler alone measures it
/// (no smsp__sass_* FLOP counters: docs/measurement.md), as a campaign's later champions are.
inline metric_values naive_sgemm_2048(bool with_flop_counters = true) {
  metric_values m{
    {"duration", 2.49e-3},
    {"sm_throughput", 0.585},
    {"memory_throughput", 0.912},
    {"dram_throughput", 0.0061},
    {"sm_active", 0.99},
    {"ipc", 1.05},
    {"fp32_pipe", 0.205},
    {"dram_bytes_read", 33.55e6},
    {"dram_bytes_write", 16.78e6},
    {"l1_hit_rate", 0.874},
    {"l2_hit_rate", 0.994},
    {"achieved_occupancy", 0.97},
    {"theoretical_occupancy", 1.0},
    {"registers_per_thread", 32},
    {"grid_size", 16384},
    {"block_size", 256},
    {"waves_per_sm", 15.5},
    {"stall_long_scoreboard", 0.31},
    {"stall_lg_throttle", 0.42},
    {"stall_mio_throttle", 0.05},
    {"stall_wait", 0.04},
  };
  if (with_flop_counters) {
    // ncu reads all nine counters; only the FFMAs are non-zero (one per multiply-add).
    for (const auto* key : {"fadd_instructions", "fmul_instructions", "hfma_instructions",
                            "hadd_instructions", "hmul_instructions", "dfma_instructions",
                            "dadd_instructions", "dmul_instructions"})
      m[key] = 0;
    m["ffma_instructions"] = 8589934592.0; // 2048^3
  }
  return m;
}

/// The naive SGEMM of issue 26 (a scripted model tuning examples/sgemm at 2048^3 on an H100 SXM):
/// BUILT FROM THE FIGURES ITS PROMPT QUOTED, not captured: L1/TEX throughput 99.4%, L2 hit 98.4%,
/// DRAM 20.9 GB/s = 0.6% of peak, SM throughput 66% (compute gap 0.34), 260 FLOP per DRAM byte.
/// 2048^3 FFMA = 1.718e10 FLOP over 260 FLOP/B is 66.1 MB of DRAM traffic (A and B read 1.5 times,
/// C written once), which at 20.9 GB/s took 3.16 ms. The rest is what such a kernel shows: LG
/// throttle stalls behind the saturated L1, loads of A broadcast within a warp (half the sector
/// bytes unused on average), full occupancy.
inline metric_values l1_bound_sgemm_2048() {
  metric_values m{
    {"duration", 3.162e-3},
    {"sm_throughput", 0.66},
    {"memory_throughput", 0.994},
    {"dram_throughput", 0.0062},
    {"l1_throughput", 0.994},
    {"l2_throughput", 0.235},
    {"sm_active", 0.99},
    {"ipc", 1.32},
    {"dram_bytes_read", 49.30e6},
    {"dram_bytes_write", 16.78e6},
    {"l1_hit_rate", 0.874},
    {"l2_hit_rate", 0.984},
    {"global_load_requests", 1073741824},
    {"global_load_efficiency", 0.5625},
    {"global_store_requests", 131072},
    {"global_store_efficiency", 1.0},
    {"shared_bank_conflicts_load", 0},
    {"shared_bank_conflicts_store", 0},
    {"local_load_instructions", 0},
    {"local_store_instructions", 0},
    {"achieved_occupancy", 0.97},
    {"theoretical_occupancy", 1.0},
    {"registers_per_thread", 32},
    {"grid_size", 16384},
    {"block_size", 256},
    {"waves_per_sm", 15.5},
    {"stall_long_scoreboard", 0.12},
    {"stall_lg_throttle", 0.30},
    {"stall_mio_throttle", 0.05},
    {"stall_wait", 0.04},
    {"ffma_instructions", 8589934592.0},
  };
  for (const auto* key : {"fadd_instructions", "fmul_instructions", "hfma_instructions",
                          "hadd_instructions", "hmul_instructions", "dfma_instructions",
                          "dadd_instructions", "dmul_instructions"})
    m[key] = 0;
  return m;
}

/// A row softmax, one 256-thread block per row of 4096 f32 values (4096 rows), three passes over
/// the row with block-wide reductions between them: no level near its roof (BUILT, not captured),
/// few resident warps (48 KiB of shared memory per block), waiting at barriers.
inline metric_values latency_bound_softmax() {
  metric_values m{
    {"duration", 71.0e-6},
    {"sm_throughput", 0.31},
    {"memory_throughput", 0.44},
    {"dram_throughput", 0.41},
    {"l1_throughput", 0.38},
    {"l2_throughput", 0.44},
    {"sm_active", 0.97},
    {"ipc", 0.62},
    {"fp32_pipe", 0.12},
    {"dram_bytes_read", 67.11e6},
    {"dram_bytes_write", 67.11e6},
    {"global_load_requests", 524288},
    {"global_load_efficiency", 1.0},
    {"global_store_requests", 524288},
    {"global_store_efficiency", 1.0},
    {"shared_bank_conflicts_load", 0},
    {"shared_bank_conflicts_store", 0},
    {"achieved_occupancy", 0.36},
    {"theoretical_occupancy", 0.375},
    {"stall_barrier", 0.41},
    {"stall_long_scoreboard", 0.27},
    {"stall_short_scoreboard", 0.06},
    {"ffma_instructions", 8388608},
    {"fadd_instructions", 16777216},
    {"fmul_instructions", 16777216},
  };
  for (const auto* key : {"hfma_instructions", "hadd_instructions", "hmul_instructions",
                          "dfma_instructions", "dadd_instructions", "dmul_instructions"})
    m[key] = 0;
  return m;
}

/// A sum reduction of 256 Mi f32 values with grid-stride loads of one float per thread: DRAM at
/// 88% of its peak, perfectly coalesced, one FADD per 4 bytes (BUILT, not captured).
inline metric_values dram_bound_reduction() {
  metric_values m{
    {"duration", 364.0e-6},
    {"sm_throughput", 0.29},
    {"memory_throughput", 0.88},
    {"dram_throughput", 0.88},
    {"l1_throughput", 0.31},
    {"l2_throughput", 0.47},
    {"sm_active", 0.99},
    {"ipc", 0.35},
    {"fp32_pipe", 0.06},
    {"dram_bytes_read", 1073.7e6},
    {"dram_bytes_write", 0.1e6},
    {"global_load_requests", 8388608},
    {"global_load_efficiency", 1.0},
    {"global_store_requests", 1024},
    {"global_store_efficiency", 1.0},
    {"achieved_occupancy", 0.88},
    {"stall_long_scoreboard", 0.71},
    {"stall_barrier", 0.02},
    {"fadd_instructions", 268435456},
  };
  for (const auto* key : {"ffma_instructions", "fmul_instructions", "hfma_instructions",
                          "hadd_instructions", "hmul_instructions", "dfma_instructions",
                          "dadd_instructions", "dmul_instructions"})
    m[key] = 0;
  return m;
}

/// The naive transpose at 8192 x 8192 f32 with every memory level measured (BUILT, not captured):
/// coalesced reads, column-strided writes using 12.5% of each sector, DRAM the busiest level at
/// 81% (the wasted sectors go to DRAM too), L2 64%, L1 35%; no floating-point instruction.
inline metric_values uncoalesced_transpose_8192() {
  auto m = naive_transpose();
  m["duration"] = 1.32e-3;
  m["memory_throughput"] = 0.81;
  m["dram_throughput"] = 0.81;
  m["l2_throughput"] = 0.64;
  m["l1_throughput"] = 0.35;
  m["dram_bytes_read"] = 268.44e6;
  m["dram_bytes_write"] = 805.3e6;
  return m;
}

/// A register-hungry stencil: 128 registers per thread at 256 threads per block leave room for
/// 2 blocks (16 warps of 64) per SM, so a quarter of the warp slots at most.
inline metric_values register_heavy_stencil() {
  return {
    {"duration", 412.0e-6},
    {"sm_throughput", 0.352},
    {"memory_throughput", 0.301},
    {"dram_throughput", 0.288},
    {"sm_active", 0.97},
    {"ipc", 1.12},
    {"fp32_pipe", 0.31},
    {"l1_hit_rate", 0.71},
    {"l2_hit_rate", 0.83},
    {"global_load_requests", 1048576},
    {"global_load_efficiency", 0.97},
    {"global_store_requests", 131072},
    {"global_store_efficiency", 1.0},
    {"shared_bank_conflicts_load", 0},
    {"shared_bank_conflicts_store", 0},
    {"local_load_instructions", 0},
    {"local_store_instructions", 0},
    {"achieved_occupancy", 0.231},
    {"theoretical_occupancy", 0.25},
    {"occupancy_limit_registers", 2},
    {"occupancy_limit_shared_mem", 3},
    {"occupancy_limit_warps", 8},
    {"occupancy_limit_blocks", 32},
    {"registers_per_thread", 128},
    {"grid_size", 2112},
    {"waves_per_sm", 8.0},
    {"stall_long_scoreboard", 0.25},
    {"stall_short_scoreboard", 0.08},
    {"stall_mio_throttle", 0.03},
    {"stall_math_pipe_throttle", 0.05},
    {"stall_barrier", 0.10},
    {"stall_lg_throttle", 0.02},
    {"stall_wait", 0.18},
    {"stall_membar", 0.0},
  };
}

} // namespace warpforge::diagnosis::testing
