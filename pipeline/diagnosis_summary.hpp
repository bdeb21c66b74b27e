#pragma once
// What the profiler/diagnoser says about a job's best kernel, in the form the rest of the
// pipeline needs: the proposer reads it to choose what to try next, the scheduler stops a job at
// near-peak, the store keeps the gaps with the iteration. The full diagnosis (every metric, rule
// and note) is diagnosis::diagnosis; this is its summary, made once by summarize() below.

#include "gpu/runner/worker_service.hpp"
#include "diagnosis/diagnose.hpp"
#include "pipeline/branch_ref.hpp"
#include "pipeline/job_setup.hpp"
#include "sass/method_catalog.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::pipeline {

struct finding_summary {
  std::string rule_id;
  diagnosis::severity level = diagnosis::severity::info;
  std::string text;    // what the rule saw, with the numbers
  std::string action;  // what it suggests
  friend bool operator==(const finding_summary&, const finding_summary&) = default;
};

/// A catalog method the findings call for (sass/data/method_catalog.toml).
struct method_suggestion {
  std::string id;               // "memory.tiling_smem"
  std::uint32_t priority = 0;   // 1 = try first within its axis
  std::string name;             // human name
  friend bool operator==(const method_suggestion&, const method_suggestion&) = default;
};

/// A catalog method the findings call for that does not fit the kernel's measured work, and why
/// (so the report and the prompt can say it).
struct method_exclusion {
  std::string id;     // "compute.tensor_core"
  std::string reason; // "needs matrix_multiply: 0 FLOP over 134 MB of DRAM traffic: ..."
  friend bool operator==(const method_exclusion&, const method_exclusion&) = default;
};

/// What the kernel's launch looks like, beyond its metrics, and what its problem allows.
struct work_context {
  std::uint32_t kernels = 1; // kernels (launches) the problem runs: 1 in kernel mode
  diagnosis::problem_constraints problem; // lower precision, tolerance, declared FLOP; unknown
                                          // (known = false) when no problem is at hand
};

/// The context of a job: its problem's constraints (lower_precision_allowed, the one rule of
/// code_check.hpp; rtol; [work] flop at the default point).
work_context work_context_of(const job_setup& job);

/// The candidate methods and the ones left out.
struct method_choice {
  std::vector<const sass::method_entry*> chosen; // best priority first within each axis
  std::vector<method_exclusion> excluded;        // called for by a finding, but do not fit
  std::string budget_note; // why the budget differs from the diagnosis's, or empty
};

struct diagnosis_summary {
  branch_ref of;                 // the branch whose launch was profiled
  int gpu = -1;                  // the GPU it was profiled on
  bool diagnosed = false;        // counters were read and diagnosed; false: `note` says why not
  std::string note;              // the metric source's note (why metrics are missing, ncu used)
  gpu::worker_service service = gpu::worker_service::in_service; // as the metric_set's
  std::string why_out_of_service; // the worker's reason, when out of service
  double gap_compute = 1;        // roofline gaps, ratios in [0, 1]: 0 is at the peak
  double gap_memory = 1;
  double gap_latency = 1;
  bool near_peak = false;        // every gap under the threshold: stop optimising this job
  diagnosis::widest_gap widest = diagnosis::widest_gap::near_peak;
  std::uint32_t budget_compute = 0; // methods to try next per axis
  std::uint32_t budget_memory = 0;
  std::uint32_t budget_latency = 0;
  std::vector<finding_summary> findings;   // fired rules, as diagnose() ordered them
  std::vector<method_suggestion> methods;  // catalog methods the findings call for, best first
  std::vector<method_exclusion> excluded;  // called for, but not fitting the measured work
  std::string gaps_json;                   // the iteration row's gaps column (docs/run-directory.md)
  friend bool operator==(const diagnosis_summary&, const diagnosis_summary&) = default;
};

/// The summary of `d` (a diagnosis of `of` on GPU `gpu`); `sm` is the GPU's compute capability
/// x 10 (methods needing a newer one are left out; 0: no filter).
diagnosis_summary summarize(const diagnosis::diagnosis& d, const branch_ref& of, int gpu, int sm,
                            const work_context& context = {});

/// The binding level's advised methods first (d.advice, in its order), then catalog methods that
/// some fired finding names, best priority first within each axis, at most
/// the budget's count per axis, never two coupled methods, none needing a newer GPU than `sm`
/// (compute capability x 10; 0: no filter), and none whose `needs` the kernel's measured work
/// lacks (d.work; `context` for the launches) or its problem rules out (lower precision it forbids
/// or its tolerance cannot absorb, tensor cores without FLOP: diagnosis::ruled_out_by_problem):
/// those are `excluded` with the reason. A kernel
/// that does no arithmetic has no compute headroom worth a method: the compute axis's budget goes
/// to memory (then latency). None when near peak: the loop stops.
method_choice choose_methods(const diagnosis::diagnosis& d, int sm, const work_context& context = {});

/// choose_methods(d, sm).chosen: one kernel in one launch, as campaigns and `diagnose` run it.
std::vector<const sass::method_entry*> candidate_methods(const diagnosis::diagnosis& d, int sm);

} // namespace warpforge::pipeline
