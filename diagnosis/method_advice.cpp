#include "diagnosis/method_advice.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace warpforge::diagnosis {
namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

constexpr std::array<std::string_view, 4> lower_precision_methods{
  "compute.mixed_precision", "compute.tensor_core", "compute.fp8_fast_accumulation_mode",
  "compute.block_scaled_precision"};

constexpr std::array<std::string_view, 9> tensor_core_methods{
  "compute.tensor_core",
  "compute.two_level_accumulation_promotion",
  "compute.fp8_fast_accumulation_mode",
  "compute.block_scaled_precision",
  "compute.tf32_emulation_3xtf32_bf16x6",
  "compute.gemm_softmax_interleave",
  "memory.ldmatrix_stmatrix",
  "latency.pingpong_warpgroup_schedule",
  "latency.intra_wg_gemm_softmax_pipeline"};

bool yes(const work_finding& f) { return f.verdict == work_verdict::yes; }

level_advice l1_advice(const hierarchy& h, const work_profile& work, const metric_values& m) {
  level_advice a;
  if (yes(work.matrix_multiply)) {
    a.first = {{"compute.ilp_unroll_register_tile",
                "each value loaded from L1 feeds a whole row or column of a register tile: TM x TN FMAs "
                "per TM + TN loads instead of one FMA per two loads"},
               {"memory.tiling_smem", "operand tiles staged once in shared memory, read from there by the "
                                      "register tiles"}};
    a.playbook = "L1/shared is the roof: the kernel issues too many L1 requests per FMA, and the DRAM roof is "
                 "far away because the caches already serve the reuse. Raise the arithmetic per loaded value: "
                 "register tiling (each thread computes a TM x TN block of outputs from TM + TN loaded values), "
                 "operands staged in shared memory, wide (128-bit) shared loads. More FMAs per load is exactly "
                 "what helps here; DRAM traffic is not the problem.";
    return a;
  }
  if (auto conflicts = value_of(m, "shared_bank_conflicts"); conflicts && *conflicts > 0)
    a.first.push_back({"memory.bank_conflict", number(*conflicts) + " shared-memory bank conflicts replay "
                                                                    "L1/shared wavefronts"});
  if (h.uncoalesced)
    a.first.push_back({"memory.coalesced_access", "uncoalesced global accesses fetch sectors they do not use"});
  a.first.push_back({"memory.tiling_smem", "reuse staged data instead of requesting it from L1 again"});
  a.first.push_back({"memory.vectorized_access", "128-bit accesses: a quarter of the L1 requests"});
  a.playbook = "L1/shared is the roof: fewer L1 requests for the same work. Remove bank conflicts and uncoalesced "
               "accesses (each wastes L1 wavefronts), reuse values held in registers, use 128-bit accesses.";
  return a;
}

level_advice l2_advice(const work_profile& work) {
  level_advice a;
  if (yes(work.matrix_multiply))
    a.first.push_back({"compute.ilp_unroll_register_tile", "register tiles reuse each loaded value many times"});
  a.first.push_back({"memory.tiling_smem", "values reused by a block come from shared memory, not L2"});
  a.first.push_back({"latency.tile_scheduler_swizzle", "neighbouring blocks share operands while they sit in L2"});
  a.playbook = "L2 is the roof: the kernel re-reads through L2 what one block could keep. Stage reused data in "
               "shared memory or registers, and order blocks so that those sharing data run together.";
  return a;
}

level_advice dram_advice(const hierarchy& h) {
  level_advice a;
  if (h.uncoalesced) {
    a.first = {{"memory.coalesced_access", "each warp's accesses should fill whole 32-byte sectors"},
               {"memory.tiling_smem", "a shared-memory tile turns strided accesses into coalesced ones "
                                      "(a transpose reads rows and writes rows)"},
               {"memory.vectorized_access", "128-bit accesses once they are coalesced"}};
    a.playbook = "DRAM is the roof and part of its traffic is wasted: uncoalesced accesses fetch whole sectors "
                 "for a few bytes each. Coalesce first (through a shared-memory tile where reads and writes run "
                 "along different axes); tensor cores, FMA tricks and unrolling of arithmetic do nothing here.";
    return a;
  }
  a.first = {{"memory.vectorized_access", "128-bit accesses hold the DRAM roof with a quarter of the instructions"},
             {"compute.mixed_precision", "narrower data: fewer bytes per element"},
             {"memory.kernel_fusion", "no intermediate round trip through DRAM"},
             {"memory.tiling_smem", "each byte read from DRAM once, reused from shared memory"}};
  a.playbook = "DRAM is the roof: the time is the bytes moved over the bandwidth. Move fewer bytes (narrower types "
               "where the problem allows them, fusion, each byte read once) and keep enough bytes in flight to "
               "hold the roof (128-bit accesses, several independent loads per thread). Tensor cores, FMA tricks "
               "and unrolling of arithmetic do nothing here.";
  return a;
}

level_advice compute_advice(const hierarchy& h, const work_profile& work) {
  level_advice a;
  if (h.binding == roofline_level::tensor) {
    a.first = {{"latency.pingpong_warpgroup_schedule", "keep the tensor pipe fed while the other warpgroup "
                                                       "runs its epilogue"},
               {"compute.warp_specialization", "producer warps load, consumer warps issue MMAs"}};
    a.playbook = "The tensor pipe is the roof: keep it issuing (overlap loads and epilogues with MMAs).";
    return a;
  }
  if (yes(work.matrix_multiply))
    a.first = {{"compute.tensor_core", "a matrix multiply on the FP32/FP16 pipes leaves the tensor cores idle"},
               {"compute.tf32_emulation_3xtf32_bf16x6", "f32 accuracy through tensor cores"}};
  a.first.push_back({"compute.fma_and_fast_math", "fewer instructions per result"});
  a.first.push_back({"compute.strength_reduce", "cheaper operations for the same result"});
  a.playbook = "An SM pipe is the roof: do less arithmetic or move it to a faster unit (tensor cores for a matrix "
               "multiply, FMA contraction, strength reduction, moving work off the busiest pipe).";
  return a;
}

level_advice latency_advice(const metric_values& m, const work_profile& work, const advice_policy& policy) {
  level_advice a;
  if (auto occupancy = value_of(m, "achieved_occupancy"); occupancy && *occupancy < policy.low_occupancy_below) {
    a.first.push_back({"compute.launch_config", "only " + number(*occupancy * 100) +
                                                    "% of the warp slots are active: more warps hide latency"});
    a.first.push_back({"memory.register_pressure", "fewer registers per thread leave room for more warps"});
  }
  const auto barrier = value_of(m, "stall_barrier").value_or(0.0);
  const auto scoreboard = value_of(m, "stall_long_scoreboard").value_or(0.0);
  if (barrier > scoreboard && barrier > 0)
    a.first.push_back({"compute.warp_shuffle", "warp shuffles instead of block-wide barriers"});
  a.first.push_back({"latency.async_pipeline", "load the next tile while computing this one"});
  if (work.arithmetic.verdict != work_verdict::no)
    a.first.push_back({"compute.ilp_unroll_register_tile", "more independent work per thread"});
  a.playbook = "No level is near its roof: the kernel waits. Expose more parallelism (more warps where occupancy "
               "is low, fewer barriers), overlap loads with compute, give each thread independent work.";
  return a;
}

} // namespace

level_advice advise_for_level(const hierarchy& h, const work_profile& work, const metric_values& completed,
                              const advice_policy& policy) {
  switch (h.kind) {
  case binding_kind::l1_bound: return l1_advice(h, work, completed);
  case binding_kind::l2_bound: return l2_advice(work);
  case binding_kind::dram_bound: return dram_advice(h);
  case binding_kind::memory_bound: {
    auto a = dram_advice(h);
    a.playbook = "A memory unit is the roof, but L1 and L2 were not measured: compare DRAM throughput with the "
                 "memory throughput. If DRAM is far below it, the caches bind (raise the reuse in registers and "
                 "shared memory); if DRAM is the busiest, move fewer bytes.";
    return a;
  }
  case binding_kind::compute_bound: return compute_advice(h, work);
  case binding_kind::latency_bound: return latency_advice(completed, work, policy);
  case binding_kind::unknown: break;
  }
  return {};
}

bool finding_fits_binding(std::string_view rule_id, binding_kind kind) {
  if (rule_id != "memory_bound")
    return true;
  return kind == binding_kind::dram_bound || kind == binding_kind::memory_bound || kind == binding_kind::unknown;
}

bool is_lower_precision_method(std::string_view id) {
  return std::find(lower_precision_methods.begin(), lower_precision_methods.end(), id) !=
         lower_precision_methods.end();
}

bool is_tensor_core_method(std::string_view id) {
  return std::find(tensor_core_methods.begin(), tensor_core_methods.end(), id) != tensor_core_methods.end();
}

std::optional<std::string> ruled_out_by_problem(std::string_view id, const work_profile& work,
                                                const problem_constraints& constraints,
                                                const advice_policy& policy) {
  if (is_tensor_core_method(id)) {
    if (work.flop && *work.flop == 0 && !(work.tensor_activity && *work.tensor_activity > 0))
      return std::string{"a tensor-core method for a kernel with no FLOP: the profiler counted 0"};
    if (constraints.known && (!constraints.declared_flop || *constraints.declared_flop <= 0))
      return std::string{"a tensor-core method for a problem that declares no FLOP ([work] flop absent or 0)"};
  }
  if (constraints.known && is_lower_precision_method(id)) {
    if (!constraints.lower_precision_allowed)
      return std::string{"computes narrower than the problem's outputs, and the problem forbids lower precision "
                         "([reference] allow_lower_precision = false, the default for f32/f64 problems with no "
                         "f16/bf16 buffer): its kernel would be judged incorrect"};
    if (constraints.rtol && *constraints.rtol < policy.min_rtol_for_lower_precision)
      return "the tolerance rtol " + number(*constraints.rtol) + " is tighter than the " +
             number(policy.min_rtol_for_lower_precision) + " that arithmetic narrower than f32 can meet";
  }
  return std::nullopt;
}

} // namespace warpforge::diagnosis
