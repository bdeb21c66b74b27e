#pragma once
// What to try first at the level that binds the kernel (hierarchical_roofline.hpp), and which
// methods the problem itself rules out. The candidate methods (pipeline/diagnosis_summary.hpp),
// `warpforge diagnose` and the model's prompt all take the advice from here, so the text the
// model reads and the methods it is offered say the same thing:
//
//   L1-bound, matrix multiply   register tiling, then shared-memory tiling (each value loaded from
//                               L1 feeds many FMAs: more FMAs per load is the fix, not fewer)
//   L1-bound, otherwise         bank conflicts / coalescing when measured, shared-memory tiling,
//                               wide accesses
//   L2-bound                    reuse through shared memory (and registers for a GEMM), L2 locality
//   DRAM-bound, uncoalesced     coalescing first (a transpose: through a shared-memory tile)
//   DRAM-bound                  fewer bytes: wide accesses to hold the roof, narrower data where
//                               the problem allows it, fusion, each byte read once
//   compute-bound               tensor cores for a matrix multiply, else cheaper arithmetic
//   latency-bound               occupancy first when it is low, then latency hiding: asynchronous
//                               pipelines, more independent work per thread
//
//   level_advice a = advise_for_level(d.hierarchy, d.work, d.metrics);
//   if (auto why = ruled_out_by_problem("compute.mixed_precision", d.work, constraints)) ...

#include "diagnosis/hierarchical_roofline.hpp"
#include "diagnosis/metric_values.hpp"
#include "diagnosis/work_profile.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis {

struct advice_policy {
  // Relative tolerance below which arithmetic narrower than f32 cannot pass: FP16 and TF32 keep
  // 11 significant bits (unit roundoff 2^-11 = 4.9e-4), and a dot product of thousands of terms
  // accumulates several of those; bf16 keeps 8 (3.9e-3).
  double min_rtol_for_lower_precision = 1e-3;
  double low_occupancy_below = 0.5; // ratio: achieved occupancy under this comes first when
                                    // latency-bound (rules.toml low_occupancy's threshold)
};

/// What the problem spec says about the methods that may fit it. Built by the caller from the
/// spec (pipeline::constraints_of); `known` false means no problem was given and nothing is
/// ruled out on its account.
struct problem_constraints {
  bool known = false;
  bool lower_precision_allowed = true; // pipeline::lower_precision_allowed(problem): the one rule
  std::optional<double> rtol;          // [reference] rtol; none: the dtype's default
  std::optional<double> declared_flop; // [work] flop at the default point; none: not declared
};

/// A method to try first, and why at this level.
struct advised_method {
  std::string id;  // a method catalog id: "compute.ilp_unroll_register_tile"
  std::string why; // "each value loaded from L1 feeds TM x TN FMAs"
  bool operator==(const advised_method&) const = default;
};

struct level_advice {
  std::vector<advised_method> first; // in order: the binding level's methods
  std::string playbook;              // what to do at this level, and what does not help, one paragraph
  bool operator==(const level_advice&) const = default;
};

/// The advice for the level that binds the kernel.
level_advice advise_for_level(const hierarchy& h, const work_profile& work, const metric_values& completed,
                              const advice_policy& policy = {});

/// Whether a fired finding calls for methods at this binding level. memory_bound fires on the
/// busiest memory unit whichever level it is, but its methods move fewer DRAM bytes (narrower
/// types, fusion, recomputation): for a kernel bound by L1, L2, a pipe or latency, the level's
/// advice speaks instead. Every other finding speaks at every level.
bool finding_fits_binding(std::string_view rule_id, binding_kind kind);

/// Methods that compute in a narrower precision than f32 (tensor cores take f32 operands as TF32).
bool is_lower_precision_method(std::string_view id);
/// Methods that only exist on tensor cores.
bool is_tensor_core_method(std::string_view id);

/// Why the problem rules `id` out, or none: lower precision where the problem forbids it or its
/// tolerance is tighter than min_rtol_for_lower_precision; tensor cores for a kernel with no FLOP
/// (the problem declares none, or the profiler counted zero).
std::optional<std::string> ruled_out_by_problem(std::string_view id, const work_profile& work,
                                                const problem_constraints& constraints,
                                                const advice_policy& policy = {});

} // namespace warpforge::diagnosis
