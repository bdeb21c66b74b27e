#pragma once
// Everything a prompt states, as plain data. The lead maps the pipeline's types (problem spec,
// diagnosis summary, attempt memory) into these structs; llm/prompt/ renders them and never
// reads the pipeline itself, so the prompt text can be tested from literal values.
//
// Units: times are microseconds (`_us`), speed-ups are ratios (2.0 = twice as fast as the
// baseline), metric values are in the unit their `unit` field names ("ratio" is 0..1 and is
// shown to the model as a percentage: sections.hpp, shown()).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::llm {

struct gpu_facts {
  std::string name;  // "NVIDIA H100 SXM5 80GB"
  std::string arch;  // "sm_90"
  std::vector<std::pair<std::string, std::string>> specs; // label -> value with unit, rendered as given
};

struct problem_facts {
  std::string name;       // the problem's name
  std::string entry;         // the __global__ function's name ("MatrixMulCUDA")
  std::string declaration;   // the entry as a variant must declare it, its linkage, template head
                             // and parameter types: `extern "C" __global__ void f(const float*)`,
                             // `template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float*, ...)`
  std::string instantiation; // the template instantiation compiled and launched ("MatrixMulCUDA<32>");
                             // empty for a non-template
  std::vector<std::pair<std::string, std::int64_t>> dims; // named dimensions and their values
  std::string launch;     // grid / block / dynamic shared memory as the spec writes them
  std::string tolerances; // how outputs are compared ("atol 1e-4, rtol 1e-3")
  std::string outputs;    // which arguments are outputs
  std::string notes;      // anything else the spec says about the problem
};

struct metric_fact {
  std::string section; // "Speed of light", "Memory", ... (the metric schema's sections)
  std::string name;    // the metric key: "dram_throughput"
  double value = 0;    // in `unit`
  std::string unit;    // the schema's unit: "ratio", "bytes", "seconds", ...
};

struct rule_fact {
  std::string id;       // the rule id of diagnosis/data/rules.toml: "poor_coalescing"
  std::string severity; // "critical" | "warning" | "info"
  std::string text;     // the finding, with its numbers
};

struct diagnosis_facts {
  std::string bottleneck;             // the binding level, with numbers: "L1-bound: L1/shared at
                                      // 99.4% of its peak (L2 23.5%, DRAM 0.6%; ...)"
  std::string binding;                // its kind (diagnosis/hierarchical_roofline.hpp): "l1_bound",
                                      // "l2_bound", "dram_bound", "memory_bound", "compute_bound",
                                      // "latency_bound", "unknown"; empty: not told
  std::vector<std::string> off_level;  // fired findings whose playbook does not speak at the
                                       // binding level (diagnosis::finding_fits_binding): the
                                       // memory_bound playbook of an L1-bound kernel
  std::vector<std::string> roofline;  // lines: the gaps, the roofline point, near-peak or not
  std::vector<std::pair<std::string, std::uint32_t>> method_budget; // axis -> how many methods
  std::vector<rule_fact> fired;       // as the diagnosis ordered them
  std::vector<metric_fact> metrics;   // the key metrics, grouped by section when rendered
  std::vector<std::string> candidate_methods; // catalog ids the findings call for, best first
};

struct method_fact {
  std::string id;      // "memory.tiling_smem"
  std::string axis;    // "compute" | "memory" | "latency"
  std::string summary; // the catalog's human name
};

/// How an earlier attempt ended, in the words the prompt uses (tuning/attempt_memory.hpp).
enum class attempt_verdict : std::uint8_t {
  accepted, // correct and faster than the best by more than the noise: the new champion
  rejected, // correct, but not a clear gain
  failed,   // did not compile, failed the SASS check or correctness, crashed or timed out
};
inline constexpr std::array all_attempt_verdicts{attempt_verdict::accepted, attempt_verdict::rejected,
                                                 attempt_verdict::failed};
/// "ACCEPTED" / "REJECTED" / "FAILED".
std::string_view to_string(attempt_verdict verdict);
std::optional<attempt_verdict> attempt_verdict_from_string(std::string_view text);

struct attempt_fact {
  std::int64_t iteration = 0;       // 0: from an earlier run
  std::string variant;              // the branch's name
  std::vector<std::string> methods; // the methods it claimed (catalog ids)
  attempt_verdict verdict = attempt_verdict::failed;
  std::string why;                  // one line: times against the best, or the failure
  std::optional<double> speedup;    // vs the baseline (ratio), when it was measured
  std::string attribution;          // leave-one-out result, one line; empty when none
};

/// A variant that goes back to the model with what went wrong.
struct fix_request {
  enum class kind : std::uint8_t {
    compile,     // NVRTC rejected it: `report` is the compiler log
    correctness, // it ran but its outputs differ: `report` is the comparison report
  };
  std::string variant; // the branch's name
  kind what = kind::compile;
  std::string code;    // the variant's full source
  std::string report;  // compiler log or comparison report, trimmed by the caller
  std::int64_t iteration = 0; // the round the variant belongs to (names repeat across rounds); 0: any
};
inline constexpr std::array all_fix_kinds{fix_request::kind::compile, fix_request::kind::correctness};
/// "compile" / "correctness".
std::string_view to_string(fix_request::kind what);
std::optional<fix_request::kind> fix_kind_from_string(std::string_view text);

/// A metric value the judge cites as evidence: `name` is a metric key of the prompt, `value`
/// as the prompt showed it (a "ratio" metric as its percentage).
struct cited_metric {
  std::string name;
  double value = 0;
};

/// One bottleneck the judge names: a category of judge.hpp's fixed list.
struct bottleneck {
  std::string category;              // one of judge_categories
  std::string summary;               // one line: what limits the kernel and what to do
  std::vector<cited_metric> evidence; // at least one measured metric
};

/// The judge's answer (judge.hpp): two distinct bottlenecks, the primary first.
struct judge_verdict {
  bottleneck primary;
  bottleneck secondary;
};

/// Everything the propose, fix and judge prompts are built from.
/// A variant of the last round that was the same kernel as an earlier branch of the job (the same
/// code once comments and whitespace are set aside, the same defines and launch): recorded as its
/// duplicate, not built or measured again.
struct repeat_fact {
  std::string variant;                 // its name
  std::int64_t iteration = 0;          // the round it came in
  std::string earlier_variant;         // the branch it repeated: its name ("the baseline" for
  std::int64_t earlier_iteration = 0;  // the problem's own kernel), iteration and branch
  std::int64_t earlier_branch = 0;
};

struct prompt_inputs {
  gpu_facts gpu;
  problem_facts problem;
  std::string best_source;              // the current best kernel, whole
  std::optional<double> best_us;        // its time, microseconds
  std::optional<double> baseline_us;    // the baseline's time, microseconds
  std::optional<diagnosis_facts> diagnosis; // of the current best; none: not profiled
  std::vector<method_fact> methods;     // the method catalog
  std::string reply_format;             // the envelope instructions, given by the lead
  std::vector<attempt_fact> this_run;   // this run's attempts, oldest first
  std::string past_runs;                // frozen memory from earlier runs, rendered
  std::string patterns;                 // the cross-kernel pattern library, rendered
  std::uint32_t k = 4;                  // variants wanted per round
  std::vector<fix_request> fixes;       // failures of this round still to learn from
  std::optional<judge_verdict> judge;   // the judge's analysis of the current best
  std::vector<std::string> ablations_wanted; // champion's methods whose leave-one-out is wanted
  std::vector<repeat_fact> repeats;     // the last round's variants that repeated an earlier branch
};

} // namespace warpforge::llm
