#pragma once
// The hierarchical roofline: how close one kernel runs to the roof of each level it uses — the
// memory levels (L1/shared, L2, DRAM) and the compute pipes (the busiest SM unit, FP32, FP16,
// FP64, tensor) — and which level binds it. The classic roofline (roofline.hpp) looks at DRAM
// alone, so a kernel that saturates L1 (a naive SGEMM: L1/TEX 99%, DRAM 0.6%) looked as far from
// the memory roof as a kernel can be (issue 26). Every view — `warpforge diagnose`, the report,
// the model's prompt — reads this one result.
//
//   hierarchy h = locate_in_hierarchy(completed);    // completed metrics (diagnose.hpp)
//   h.kind == binding_kind::l1;  h.headline == "L1-bound: L1/shared at 99.4% of its peak; ..."
//
// Levels, each as a ratio of its own peak (Nsight's pct_of_peak / 100), measured ones only:
//   l1      l1_throughput     l1tex__throughput: L1 and shared memory share the unit
//   l2      l2_throughput     lts__throughput
//   dram    dram_throughput   dram__throughput
//   memory  memory_throughput gpu__compute_memory_throughput (the busiest of the three): only
//                             when neither L1 nor L2 was measured, so the level stays unresolved
//   sm      sm_throughput     sm__throughput: the busiest SM unit (issue, ALU, FMA, LSU, ...)
//   fp32, fp16, fp64          the pipes' active cycles
//   tensor  tensor_hmma_pipe / tensor_imma_pipe / tensor_pipe, the busiest
// The binding level is the busiest one when it reaches bound_threshold (0.6, KernelAgent's
// under-utilised line, SEEDS-FACTS 4.3); below it nothing is saturated: latency-bound. Ties go
// to the level named first above (DRAM before the caches, memory before compute).

#include "diagnosis/metric_values.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis {

struct hierarchy_policy {
  double bound_threshold = 0.60;   // ratio: the busiest level at or above this binds the kernel
  double uncoalesced_below = 0.80; // ratio: global load/store sector use below this is
                                   // uncoalesced (Kernelking poor_coalescing.md, as rules.toml)
  bool operator==(const hierarchy_policy&) const = default;
};

enum class roofline_level : std::uint8_t { l1, l2, dram, memory, sm, fp32, fp16, fp64, tensor };
inline constexpr std::array all_roofline_levels{
  roofline_level::l1,  roofline_level::l2,   roofline_level::dram, roofline_level::memory,
  roofline_level::sm,  roofline_level::fp32, roofline_level::fp16, roofline_level::fp64,
  roofline_level::tensor};
std::string_view to_string(roofline_level level);
std::optional<roofline_level> roofline_level_from_string(std::string_view text);
/// For people: "L1/shared", "L2", "DRAM", "memory (L1, L2 or DRAM: level not measured)", ...
std::string_view label(roofline_level level);
bool is_memory_level(roofline_level level);

/// What binds the kernel, by level.
enum class binding_kind : std::uint8_t {
  l1_bound,      // L1/shared throughput is the busiest: reuse in registers, fewer L1 requests
  l2_bound,      // L2 throughput: reuse in shared memory / registers, better L2 locality
  dram_bound,    // DRAM: move fewer bytes, coalesce, hold the roof
  memory_bound,  // a memory unit saturates, but which level was not measured
  compute_bound, // an SM pipe: less or cheaper arithmetic
  latency_bound, // no level reaches the threshold: hide latency, more parallelism
  unknown,       // no level was measured
};
inline constexpr std::array all_binding_kinds{
  binding_kind::l1_bound,      binding_kind::l2_bound,      binding_kind::dram_bound,
  binding_kind::memory_bound,  binding_kind::compute_bound, binding_kind::latency_bound,
  binding_kind::unknown};
std::string_view to_string(binding_kind kind);
std::optional<binding_kind> binding_kind_from_string(std::string_view text);

/// One measured level.
struct level_reading {
  roofline_level level = roofline_level::dram;
  std::string key;          // the metric it was read from
  double utilisation = 0.0; // ratio of the level's peak, clamped to [0, 1]
  double gap = 0.0;         // 1 - utilisation: the level's headroom

  bool operator==(const level_reading&) const = default;
};

struct hierarchy {
  std::vector<level_reading> levels;     // measured, in the order of all_roofline_levels
  std::optional<roofline_level> busiest; // the most utilised level (none: nothing measured)
  std::optional<roofline_level> binding; // busiest, when at or above bound_threshold
  binding_kind kind = binding_kind::unknown;
  // Global loads or stores use less than uncoalesced_below of each sector: the traffic of a
  // memory-bound kernel is partly wasted (coalescing comes first). Unmeasured: false.
  bool uncoalesced = false;
  std::string headline; // "L1-bound: L1/shared at 99.4% of its peak (L2 21.0%, DRAM 0.6%; busiest
                        // compute: SM 66.0%)"

  const level_reading* reading(roofline_level level) const;
  /// The busiest memory level (L1, L2, DRAM, or the unresolved memory one): Δm's utilisation.
  const level_reading* busiest_memory() const;
  bool operator==(const hierarchy&) const = default;
};

/// The levels, the binding one and the headline from completed metrics (schema keys and units).
hierarchy locate_in_hierarchy(const metric_values& completed, const hierarchy_policy& policy = {});

} // namespace warpforge::diagnosis
