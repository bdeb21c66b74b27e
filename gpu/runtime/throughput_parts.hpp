#pragma once
// Nsight's four Speed-of-light throughputs, read by the runner from some of their parts. Each is
// the busiest of many sub-unit utilisations (ncu's "breakdown:" lists them); asked for whole they
// make a profile of the built-in schema 14 replay passes on an H100, read from these parts 10
// (sm__throughput alone needs 8 passes). Replay passes are what a host's GPUs wait on each other
// for (docs/measurement.md, "What a profile costs"). Plain C++ (no CUDA), unit-tested.
//
//   auto plan = plan_counters(counter_names, chip);  // composites replaced by their parts
//   ... the range profiler collects plan.counters ...
//   compose_throughputs(plan, values, missing);      // composites = the busiest part
//
// The parts kept are those that were the busiest in ncu's breakdown (CUDA 13.0, H100) of nine
// kernels each bound by another unit: a float4 copy (DRAM), FP32, FP64 and half2 FMA loops, an
// SFU loop (XU), an integer loop (ALU), a shared-memory loop (L1 wavefronts), a naive transpose
// (L2 requests) and an L2-resident gather (L2 to SM). There the busiest part is ncu's value of
// all four throughputs (tests/gpu/fixtures/ncu_breakdown_h100.csv). Against ncu's whole metrics
// on the examples (gpu_profile_metrics_tests) the L2's read 7 points low on row_reduction, so
// the L2 data banks (lts__d_sectors, its DRAM fills) and the MIO writeback were added; they cost
// no pass. The value is the busiest of the parts collected, so for a kernel bound by a unit left
// out it reads low; the profile's note says the throughputs were read from parts. Only on the
// chips those breakdowns were read on (GH100: H100, H200); other chips get the composites whole.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// One composite and the parts the runner reads it from (full Nsight names).
struct throughput_parts {
  std::string composite;
  std::vector<std::string> parts;
};

/// The four composites and their parts.
const std::vector<throughput_parts>& composed_throughputs();

/// The chips (CUPTI's names) whose breakdowns chose the parts.
inline constexpr std::string_view chips_with_checked_parts[] = {"GH100"};

/// What the range profiler is asked for instead of `requested` on `chip`.
struct counter_plan {
  std::vector<std::string> counters;  // requested names, composites replaced by their parts,
                                      // without duplicates, in the request's order
  std::vector<std::string> composed;  // the composites among the requested names
  std::vector<std::string> requested; // as asked
};
counter_plan plan_counters(const std::vector<std::string>& requested, std::string_view chip);

/// Each composite's value, the largest of its parts', into `values`; a composite whose parts
/// are not all there goes to `missing` with the parts it lacks. Parts that were not requested
/// themselves are taken out of `values` and `missing`.
void compose_throughputs(const counter_plan& plan, std::map<std::string, double>& values,
                         std::map<std::string, std::string>& missing);

/// For the profile's note: which composites were read from parts, and how many.
std::string composed_remark(const counter_plan& plan);

} // namespace warpforge::gpu
