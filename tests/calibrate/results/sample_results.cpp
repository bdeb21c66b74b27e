#include "sample_results.hpp"

namespace warpforge::calibrate::testing {

parameter_result passing(std::string name, std::string unit, double value) {
  parameter_result r;
  r.name = std::move(name);
  r.unit = std::move(unit);
  r.result = status::pass;
  r.value = value;
  r.stats.n = 10;
  r.stats.median = r.stats.mean = value;
  r.stats.cv = 0.01;
  r.stats.stddev = value * 0.01;
  r.stats.ci95_low = value * 0.99;
  r.stats.ci95_high = value * 1.01;
  r.stats.ci_level = 0.978;
  r.stats.max_clock_mhz = 1755;
  r.sass_verdict = "PASS";
  r.counter_verdict = "ok: smsp__inst_executed_pipe_fma";
  r.arch = "sm_90a";
  r.gpu_name = "NVIDIA H100 80GB HBM3";
  r.measured_at = "2026-11-25T21:04:05Z";
  r.benchmark_file = "kernels/" + r.name + ".cu";
  return r;
}

std::vector<parameter_result> h100_results() {
  return {
    passing("sm_count", "SMs", 132),
    passing("sm_clock_mhz", "MHz", 1755.4),
    passing("registers_per_sm", "registers", 65536),
    passing("max_warps_per_sm", "warps", 64),
    passing("warp_size", "threads", 32),
    passing("warp_schedulers_per_sm", "schedulers", 4),
    passing("l1_hit_latency", "cycles", 33.4),
    passing("smem_latency", "cycles", 29.6),
    passing("smem_banks", "banks", 32),
    passing("l2_hit_latency", "cycles", 262.2),
    passing("dram_latency", "cycles", 661.0),
    passing("int32_iadd_latency", "cycles", 4.02),
    passing("shfl_latency", "cycles", 24.0),
    passing("int32_imad_latency", "cycles", 4.1),
    passing("int32_imad_throughput", "ops/clk/SM", 64),
    passing("fp32_fma_latency", "cycles", 4.03),
    passing("fp32_fma_throughput", "ops/clk/SM", 127.6),
    passing("fp64_fma_latency", "cycles", 8.1),
    passing("fp64_fma_throughput", "ops/clk/SM", 63.8),
    passing("sfu_rsqrt_latency", "cycles", 18.2),
    passing("sfu_rsqrt_throughput", "ops/clk/SM", 16),
    passing("tensor_mma_f16_latency", "cycles", 33.0),
    passing("tensor_mma_f16_throughput", "FLOP/clk/SM", 2048),
  };
}

} // namespace warpforge::calibrate::testing
