#pragma once
// The compiled-in files of kernels/, one X(stem) each: the benchmarks (WF_BENCH_PROGRAMS, in
// catalog order) and the headers they share (WF_BENCH_HEADERS). CMakeLists.txt embeds the same
// lists as warpforge::embedded::calibrate_bench_<stem>; keep the two in step.

#define WF_BENCH_PROGRAMS(X)                                                                    \
  X(fp32_fma_latency) X(fp32_fma_throughput) X(fp64_fma_latency) X(fp64_fma_throughput)        \
  X(fp16_hfma2_latency) X(fp16_hfma2_throughput) X(int32_iadd_latency) X(int32_imad_latency)   \
  X(int32_imad_throughput) X(sfu_rsqrt_latency) X(sfu_rsqrt_throughput)                        \
  X(tensor_mma_f16_latency) X(tensor_mma_f16_throughput) X(tensor_wgmma_f16_throughput)        \
  X(smem_latency) X(smem_bandwidth) X(smem_banks) X(smem_bank_conflict_penalty)                \
  X(warp_schedulers_per_sm) X(branch_divergence_penalty) X(shfl_latency)                       \
  X(l1_hit_latency) X(l2_hit_latency) X(dram_latency) X(l1_size) X(l2_size)                   \
  X(l2_partition_size) X(l1_line_size) X(dram_bandwidth) X(l2_bandwidth) X(registers_per_sm)   \
  X(sm_clock_mhz) X(sm_count) X(max_warps_per_sm) X(max_registers_per_thread) X(warp_size)

#define WF_BENCH_HEADERS(X) X(common) X(chain) X(ops) X(smem) X(chase) X(sweep) X(l2_home) X(walk) X(l2_walk) X(stream)
