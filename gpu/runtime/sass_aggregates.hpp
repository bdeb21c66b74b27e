#pragma once
// Nsight Compute's SASS-patching metrics (smsp__sass_*) from CUPTI's SASS Metrics API
// (cupti_sass_metrics.h): CUPTI counts per instruction of the patched kernel; the runner sums
// each counter over every instruction (gpu/runtime/sass_metrics.cpp), and this file turns the
// sums into the values ncu reports, with ncu's formulas. Plain C++ (no CUDA), unit-tested.
// docs/measurement.md, "Metrics".
//
//   auto counters = sass_counters_for(request.metrics);          // CUPTI names to collect
//   ... collect them: totals[name] = sum over instructions ...
//   auto out = evaluate_sass_aggregates(request.metrics, totals, chip_metrics);
//
// The formulas (each counter summed over every SMSP and every instruction of the launch):
//   smsp__sass_inst_executed_op_local_ld.sum  = smsp__sass_inst_executed_op_local_ld
//   smsp__sass_inst_executed_op_local_st.sum  = smsp__sass_inst_executed_op_local_st
//   smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct
//       = 100 * smsp__sass_data_bytes_mem_global_op_ld / (32 * smsp__sass_sectors_mem_global_op_ld)
//   (…_op_st.pct likewise with the _op_st counters): bytes the threads asked for per 32-byte
//       sector moved, as a share of the sector;
//   smsp__sass_average_branch_targets_threads_uniform.pct
//       = 100 * smsp__sass_branch_targets_threads_uniform / smsp__sass_branch_targets, where
//       the branch targets are the uniform plus the divergent ones.

#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// Whether `nsight` is one of the smsp__sass_* metrics this file derives.
bool is_sass_aggregate(const std::string& nsight);

/// The CUPTI SASS metrics (names as cuptiSassMetricsGetMetrics lists them) that `nsight` names
/// need, without duplicates, in a stable order; names that are not SASS aggregates add nothing.
std::vector<std::string> sass_counters_for(const std::vector<std::string>& nsight);

/// Values and gaps of the SASS aggregates among `nsight`.
struct sass_evaluation {
  std::map<std::string, double> values;       // Nsight name -> value in ncu's base unit
  std::map<std::string, std::string> missing; // Nsight name -> why it has none
};

/// The aggregates among `nsight` from `totals` (CUPTI counter -> sum over the launch's
/// instructions; every collected counter is there, 0 when no instruction counted). A needed
/// counter not in `chip_counters` (what the chip offers) leaves its aggregates in `missing`,
/// naming it; so does a ratio whose denominator is 0 (the kernel executed no such instruction).
sass_evaluation evaluate_sass_aggregates(const std::vector<std::string>& nsight,
                                         const std::map<std::string, double>& totals,
                                         const std::set<std::string>& chip_counters);

} // namespace warpforge::gpu
