#pragma once
// Roofline gaps, the near-peak test and the per-iteration method budget, exactly as
// cuda-kernel-optimizer's roofline.py defines them (SEEDS-FACTS 2.3), plus the classic roofline
// point (arithmetic intensity, achieved FLOP/s and bandwidth, fractions of peak).
//
// Gaps, with every input as a ratio (Nsight's % / 100; a missing metric counts as 0):
//   Δc = max(0, 1 − max(tensor, fp32, sm_throughput))
//        tensor = tensor_hmma_pipe, else tensor_imma_pipe   (seed: pipe_tensor_op_hmma | …imma…)
//        fp32   = fp32_pipe                                 (seed: pipe_fp32_cycles_active)
//        sm_throughput                                      (seed: sm__throughput)
//   Δm = max(0, 1 − X), X = the busiest of l1_throughput, l2_throughput, dram_throughput that
//        were measured, else memory_throughput. The seed takes dram__throughput first, else
//        gpu__compute_memory_throughput; a kernel bound by L1 then showed Δm ≈ 1 (issue 26), so
//        warpforge reads the memory levels of the hierarchical roofline (hierarchical_roofline.hpp).
//   Δl = max over the latency stalls present of clamp(stall, 0, 1): stall_long_scoreboard,
//        stall_short_scoreboard, stall_barrier, stall_mio_throttle, stall_lg_throttle, stall_wait
//        (seed: metrics with "pct" and "stalled" in the name from ncu's latency axis, 2.11);
//        latency_default_gap (0.5) when none is present.
//   Degraded (none of the inputs above was measured: no profiler data): every gap = degraded_gap (0.5).
// near_peak = all three gaps < near_peak_gap (0.15): the optimisation loop stops.
// widest_gap = near_peak, else the axis with the largest gap (ties: compute, then memory). The
// seed calls this "bound"; it is the axis with the most headroom, not the limiting resource (the
// rules memory_bound / compute_bound / latency_bound say which resource limits).
//
// Method budget (total 3, at most 2 per axis):
//   1. an axis with gap < budget_zero_below (0.10) counts as 0;
//   2. if the remaining gaps sum to < budget_uniform_below (0.01): one method per axis;
//   3. raw = total · gap / Σgap, rounded half to even (Python's round(), as roofline.py);
//   4. cap each axis at budget_axis_cap; the overflow goes, one at a time, to axes below the cap in
//      order of descending gap (ties: memory, latency, compute);
//   5. force the sum to exactly `total`: add to the axis below the cap with the largest fractional
//      remainder raw − floor(raw) (ties: memory > latency > compute); remove from the axis
//      above 0 with the smallest remainder (ties: compute first, then latency, then memory).
// Step 2's "one per axis" generalises to total / 3 each, the rest by the tie order.

#include "diagnosis/gpu_specs.hpp"
#include "diagnosis/metric_values.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::diagnosis {

/// The thresholds of the gaps and the budget; defaults are roofline.py's (SEEDS-FACTS 2.3).
struct roofline_policy {
  double near_peak_gap = 0.15;         // ratio: all gaps below this -> near_peak (stop)
  double latency_default_gap = 0.50;   // ratio: Δl when no latency stall was measured
  double degraded_gap = 0.50;          // ratio: every gap when no roofline input was measured
  std::uint32_t budget_total = 3;      // methods per iteration
  std::uint32_t budget_axis_cap = 2;   // methods per axis, at most
  double budget_zero_below = 0.10;     // ratio: an axis whose gap is below this gets no method
  double budget_uniform_below = 0.01;  // ratio: remaining gaps summing below this -> even split

  bool operator==(const roofline_policy&) const = default;
};

enum class roofline_axis : std::uint8_t { compute, memory, latency };
inline constexpr std::array all_roofline_axes{roofline_axis::compute, roofline_axis::memory,
                                              roofline_axis::latency};
std::string_view to_string(roofline_axis axis);
std::optional<roofline_axis> roofline_axis_from_string(std::string_view text);

/// The seed's "bound": near_peak, or the axis with the widest gap.
enum class widest_gap : std::uint8_t { near_peak, compute, memory, latency };
inline constexpr std::array all_widest_gaps{widest_gap::near_peak, widest_gap::compute,
                                            widest_gap::memory, widest_gap::latency};
std::string_view to_string(widest_gap gap);
std::optional<widest_gap> widest_gap_from_string(std::string_view text);

/// The latency stalls whose maximum is Δl, in the seed's order.
inline constexpr std::array<std::string_view, 6> latency_gap_keys{
  "stall_long_scoreboard", "stall_short_scoreboard", "stall_barrier",
  "stall_mio_throttle",    "stall_lg_throttle",      "stall_wait"};

struct roofline_gaps {
  double compute = 0.0;             // Δc, ratio in [0, 1]
  double memory = 0.0;              // Δm, ratio in [0, 1]
  double latency = 0.0;             // Δl, ratio in [0, 1]
  bool degraded = false;            // no roofline input measured: all gaps are degraded_gap
  double compute_utilisation = 0.0; // ratio: max(tensor, fp32, sm_throughput) used for Δc
  double memory_utilisation = 0.0;  // ratio: the X used for Δm
  std::string memory_key;           // the key X came from ("" when none was measured)
  std::optional<double> max_stall;  // ratio: the largest latency stall (none: default Δl)
  std::string max_stall_key;        // which stall that was

  double gap(roofline_axis axis) const;
  bool operator==(const roofline_gaps&) const = default;
};

/// Δc, Δm, Δl from schema-keyed metrics (ratios), as above.
roofline_gaps compute_gaps(const metric_values& metrics, const roofline_policy& policy = {});

/// All three gaps < near_peak_gap.
bool is_near_peak(const roofline_gaps& gaps, const roofline_policy& policy = {});

widest_gap widest_gap_of(const roofline_gaps& gaps, const roofline_policy& policy = {});

/// Methods to pick per axis this iteration.
struct method_budget {
  std::uint32_t compute = 0;
  std::uint32_t memory = 0;
  std::uint32_t latency = 0;

  std::uint32_t total() const { return compute + memory + latency; }
  std::uint32_t of(roofline_axis axis) const;
  bool operator==(const method_budget&) const = default;
};

/// The budget split by gap size (steps 1-5 above).
method_budget allocate_budget(const roofline_gaps& gaps, const roofline_policy& policy = {});

/// The kernel on the classic roofline of its GPU. Every field is absent when its inputs are.
struct roofline_point {
  std::optional<double> arithmetic_intensity;  // FLOP per DRAM byte
  std::optional<double> achieved_flops;        // FLOP/s (non-tensor FP16+FP32+FP64)
  std::optional<double> achieved_bandwidth;    // bytes/s of DRAM traffic
  std::optional<precision> dominant_precision; // fp16, fp32 or fp64: the most FLOP
  std::optional<double> peak_flops;            // FLOP/s of the dominant precision (GPU table)
  std::optional<double> peak_bandwidth;        // bytes/s (gpu_profile::peak_dram_bandwidth)
  std::optional<double> ridge_point;           // FLOP/byte: peak_flops / peak_bandwidth
  std::optional<double> attainable_flops; // FLOP/s: min(peak_flops, intensity · peak_bandwidth)
  std::optional<double> compute_fraction;      // ratio: achieved_flops / peak_flops
  std::optional<double> bandwidth_fraction;    // ratio: achieved_bandwidth / peak_bandwidth
  std::optional<double> attainable_fraction;   // ratio: achieved_flops / attainable_flops
  // The axis that binds the kernel: compute when its intensity reaches the ridge point (it could
  // at best hit the FLOP roof), else memory (at best the bandwidth roof). Absent when FLOP or
  // DRAM bytes were not measured: a DRAM fraction alone is never passed off as the peak fraction.
  std::optional<roofline_axis> binding_axis;
  std::optional<double> peak_fraction; // ratio: the binding axis's achieved rate / its peak

  bool operator==(const roofline_point&) const = default;
};

/// From completed metrics (the derived flop_*, dram_bytes, arithmetic_intensity, achieved_*
/// keys of the schema) and the GPU's peaks.
roofline_point locate_on_roofline(const metric_values& completed, const gpu_profile& gpu);

} // namespace warpforge::diagnosis
