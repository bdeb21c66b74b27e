#pragma once
// sm__throughput, read by the runner from some of its parts. It is the busiest of some twenty SM
// sub-unit utilisations (ncu's "breakdown:" lists them), and asked for whole it makes a profile of
// the built-in schema 14 replay passes on an H100; read from 11 of its parts, 10. Replay passes are
// what a host's GPUs wait on each other for (docs/measurement.md, "What a profile costs"). The
// other three Speed-of-light composites (gpu__compute_memory_throughput, l1tex__throughput,
// lts__throughput) cost no pass beside the rest of the schema and are asked for whole. Plain C++
// (no CUDA), unit-tested.
//
//   auto plan = plan_counters(counter_names, chip);  // composites replaced by their parts
//   ... the range profiler collects plan.counters ...
//   compose_throughputs(plan, values, missing);      // composites = the busiest part
//
// The parts come from ncu's breakdown (CUDA 13.0, H100) of nine kernels each bound by another unit
// (tests/gpu/fixtures/throughput_kernels.cu): a float4 copy, FP32, FP64 and half2 FMA loops, an SFU
// loop, an integer loop, a shared-memory loop, a naive transpose and an L2-resident gather. Six
// parts were the busiest on one of them (issue, ALU, XU, the shared pipe, ADU, the MIO queue); five
// more were added by hand, units that bind other kernels (the FMA, FP64, tensor and LSU pipes, the
// MIO writeback). Four of the nine are not SM-bound (5-29%). The fixture test
// (throughput_parts_test) guards that the parts still give ncu's value on them; the check is the
// six profile kernels of gpu_profile_metrics_tests, where the runner's value was within 2.6 points
// of ncu's whole one, at most 0.1 above (H100 and H200). The value is the busiest of the parts
// collected, so for a kernel bound by a unit left out it reads low; the profile's note says it was
// read from parts. (The memory, L1 and L2 composites were read from parts as well at first;
// row_reduction's L2 and L1 then read 7 and 5 points low, and reading them whole costs no pass.)
// Only on the chips the breakdowns were read on (GH100: H100, H200); other chips get
// sm__throughput whole.

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

/// The composites and their parts (one: sm__throughput).
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
/// are not all there goes to `missing` with the parts it lacks and the first one's reason (a
/// reason it has already stays). Parts that were not requested themselves are taken out of
/// `values` and `missing`.
void compose_throughputs(const counter_plan& plan, std::map<std::string, double>& values,
                         std::map<std::string, std::string>& missing);

/// For the profile's note: which composites were read from parts, and from how many.
std::string composed_remark(const counter_plan& plan);

} // namespace warpforge::gpu
