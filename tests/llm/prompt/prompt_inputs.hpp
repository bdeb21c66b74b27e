#pragma once
// One job's prompt inputs, as the lead would map them: a transpose on an H100, diagnosed
// memory-bound with uncoalesced stores, two attempts so far.

#include "llm/prompt/facts.hpp"

namespace warpforge::llm::testing {

inline prompt_inputs transpose_inputs() {
  prompt_inputs in;
  in.gpu = {"NVIDIA H100 SXM5 80GB", "sm_90", {{"Peak DRAM bandwidth", "3350 GB/s"}, {"SMs", "132"}}};
  in.problem = {"transpose", "transpose_kernel",
                "extern \"C\" __global__ void transpose_kernel(const float*, float*, int, int)", "",
                {{"rows", 8192}, {"cols", 4096}}, "grid (cols/32, rows/8), block (32, 8)", "atol 0, rtol 0",
                "out", "out[c * rows + r] = in[r * cols + c]"};
  in.best_source = "extern \"C\" __global__ void transpose_kernel(const float* in, float* out, int rows, int cols) "
                   "{ /* NAIVE_BODY */ }\n";
  in.best_us = 412.5;
  in.baseline_us = 412.5;
  diagnosis_facts d;
  d.bottleneck = "memory_bound";
  d.roofline = {"gap compute 0.97, memory 0.38, latency 0.41", "DRAM throughput 62% of peak"};
  d.method_budget = {{"compute", 0}, {"memory", 2}, {"latency", 1}};
  d.fired = {{"low_l1_hit", "info", "Low L1 hit rate: 12%."},
             {"poor_coalescing", "warning", "Uncoalesced global access: stores use 12.5% of each sector."},
             {"memory_bound", "critical", "Memory-bound: memory throughput is 62% of peak."}};
  d.metrics = {{"Speed of light", "dram_throughput", 0.62, "ratio"},
               {"Memory", "dram_bytes", 268435456, "bytes"},
               {"Speed of light", "sm_throughput", 0.08, "ratio"},
               {"Memory", "global_store_efficiency", 0.125, "ratio"}};
  d.candidate_methods = {"memory.coalesced_access", "memory.tiling_smem"};
  in.diagnosis = d;
  in.methods = {{"memory.tiling_smem", "memory", "Shared-memory tiling"},
                {"compute.tensor_core", "compute", "Tensor cores"},
                {"memory.bank_conflict", "memory", "Remove shared-memory bank conflicts"}};
  in.reply_format = "REPLY_FORMAT_MARKER: one JSON object with \"variants\".";
  in.this_run = {{1, "b1", {"memory.tiling_smem"}, attempt_verdict::accepted, "FIRST_ATTEMPT_WHY", 2.5, ""},
                 {1, "b2", {"memory.tiling_smem"}, attempt_verdict::failed, "SECOND_ATTEMPT_WHY", std::nullopt, ""}};
  in.past_runs = "PAST_RUNS_MARKER\n";
  in.patterns = "PATTERNS_MARKER\n";
  in.k = 4;
  return in;
}

} // namespace warpforge::llm::testing
