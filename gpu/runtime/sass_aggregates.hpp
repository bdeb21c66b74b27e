#pragma once
// Nsight Compute's SASS-patching metrics (smsp__sass_*) from CUPTI's SASS Metrics API
// (cupti_sass_metrics.h): CUPTI counts per instruction of the patched kernel
// (gpu/runtime/sass_metrics.cpp gathers the counts by instruction), and this file turns them into
// the values ncu reports, with ncu's formulas. Plain C++ (no CUDA), unit-tested.
// docs/measurement.md, "Metrics".
//
//   auto counters = sass_counters_for(request.metrics);   // CUPTI counters to collect
//   ... one patched launch: a sass_instruction per instruction CUPTI reports ...
//   auto out = evaluate_sass_aggregates(request.metrics, instructions, collected_counters);
//
// The formulas, over every instruction of the launch (counts summed over every SMSP):
//   smsp__sass_inst_executed_op_local_ld.sum = sum of smsp__sass_inst_executed_op_local_ld
//   smsp__sass_inst_executed_op_local_st.sum = sum of smsp__sass_inst_executed_op_local_st
//   smsp__sass_average_branch_targets_threads_uniform.pct
//       = 100 * uniform / (uniform + divergent), the sums of
//         smsp__sass_branch_targets_threads_{uniform,divergent} (ncu's smsp__sass_branch_targets
//         is their sum)
//   smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct
//       = 100 * data bytes / (32 * sectors) over the global-load instructions (those with
//         smsp__sass_inst_executed_op_global_ld > 0), where an instruction's data bytes are the
//         threads that executed it (smsp__sass_thread_inst_executed_op_global_pred_on) times its
//         access size (the smsp__sass_inst_executed_op_memory_{8,16,32,64,128}b counter it
//         counts in) and its sectors smsp__sass_sectors_mem_global: bytes the threads asked for
//         per 32-byte sector moved. CUPTI has no smsp__sass_data_bytes_mem_global_op_ld or
//         smsp__sass_sectors_mem_global_op_ld counter (GH100 lists 60, none of them), so ncu's
//         ratio of those two is rebuilt instruction by instruction;
//   …_op_st.pct likewise over the global-store instructions (smsp__sass_inst_executed_op_global_st).
//   ncu's data bytes count a byte once however many threads of the warp asked for it; CUPTI has
//   no count of unique bytes, so threads x size is ncu's value only when no two threads of a warp
//   ask for the same bytes. Where an instruction asked for more bytes than its sectors hold (a
//   broadcast: sgemm's A row, 16 threads one word), the ratio has no value and says why; a
//   duplicate that stays within the sectors' bytes is not seen and the ratio reads high.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// One patched instruction's counts: CUPTI counter -> value summed over the GPU.
struct sass_instruction {
  std::uint32_t pc_offset = 0; // in its function
  std::map<std::string, double> counters;
};

/// Whether `nsight` is one of the smsp__sass_* metrics this file derives.
bool is_sass_aggregate(const std::string& nsight);

/// The CUPTI SASS counters (names as cuptiSassMetricsGetMetrics lists them) that the aggregates
/// among `nsight` read, without duplicates, in a stable order; empty `nsight`: every aggregate's.
std::vector<std::string> sass_counters_for(const std::vector<std::string>& nsight);

/// Values and gaps of the SASS aggregates among `nsight`.
struct sass_evaluation {
  std::map<std::string, double> values;       // Nsight name -> value in ncu's base unit
  std::map<std::string, std::string> missing; // Nsight name -> why it has none
};

/// The aggregates among `nsight` from `instructions`. `collected` are the counters that were
/// collected (an instruction without one counted 0 in it); an aggregate that needs a counter not
/// collected (the chip lacks it) is in `missing`, naming it; so is a ratio whose denominator is
/// 0 (no such instruction ran), a byte ratio over an instruction whose access size no
/// op_memory counter gives, and one over an instruction that asked for the same bytes twice.
sass_evaluation evaluate_sass_aggregates(const std::vector<std::string>& nsight,
                                         const std::vector<sass_instruction>& instructions,
                                         const std::set<std::string>& collected);

} // namespace warpforge::gpu
