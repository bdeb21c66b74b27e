#pragma once
// Judge mode, after KernelAgent's dual-bottleneck judge (SEEDS-FACTS 4.4, the historical
// judger_prompts.py): before proposing, a model names EXACTLY TWO distinct bottlenecks of the
// current best, each a category of a fixed list, each citing measured metric values. The reply
// is checked against the metrics the prompt showed, so a verdict that invents or misreads a
// number is refused (and re-asked with the reason) instead of steering the next round.
//
//   auto p = build_judge_prompt(inputs);                  // inputs.diagnosis must hold metrics
//   auto v = parse_judge(reply_text, inputs.diagnosis->metrics);
//   if (v) inputs.judge = *v;                             // rendered in the next propose prompt
//
// The reply: one JSON object (a ```json fence around it is accepted), nothing else:
//   {"primary":   {"category": "dram_bandwidth", "summary": "...",
//                  "evidence": [{"metric": "dram_throughput", "value": 91.2}]},
//    "secondary": {...}}
// The seed's four categories (memory-, compute-, occupancy-, latency-bound) are too coarse to
// choose a method from, so the list below splits them along the metric schema's sections.

#include "foundation/expected/expected.hpp"
#include "llm/prompt/facts.hpp"
#include "llm/prompt/prompt.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

inline constexpr std::array<std::string_view, 15> judge_categories{
  "dram_bandwidth",          // DRAM throughput near peak: move fewer bytes
  "cache_locality",          // low L1/L2 hit rates, DRAM bytes well above the ideal
  "uncoalesced_access",      // sectors per request above ideal, low global load/store efficiency
  "smem_bank_conflicts",     // shared-memory bank conflicts, short-scoreboard stalls
  "register_spills",         // local-memory instructions
  "occupancy",               // few active warps: registers, shared memory or block size limit it
  "insufficient_parallelism",// too few blocks or waves, idle SMs
  "memory_latency",          // long-scoreboard stalls with memory throughput far from peak
  "instruction_latency",     // wait / short-scoreboard stalls, dependent chains, low ILP
  "memory_instruction_issue",// MIO / LG throttle: too many narrow memory instructions
  "fp32_throughput",         // FP32 / FMA pipe near saturation, math-pipe throttle
  "tensor_core_underuse",    // matrix-shaped work on the FP32 pipe while tensor pipes idle
  "warp_divergence",         // low branch uniformity
  "synchronization",         // barrier / membar stalls
  "launch_overhead",         // the kernel is so short that launch and tail dominate
};
/// What the category means and which metrics show it, one line (for the prompt).
std::string_view category_meaning(std::string_view category);

/// How close a cited value must be to the one shown: within `relative` of it, or within
/// `absolute` in its shown unit (0.5 percentage points for a ratio metric).
struct citation_tolerance {
  double relative = 0.05; // ratio of the shown value
  double absolute = 0.5;  // in the shown unit
};

/// Stable: the judge's role, the categories and the reply schema; the GPU and the problem.
/// Changing: the current best kernel, the diagnosis with its metrics, the fired findings.
prompt build_judge_prompt(const prompt_inputs& inputs);

/// The judge's reply checked against `metrics` (as the prompt showed them): exactly the two
/// bottlenecks, categories from the list and distinct, a summary each, each citing at least one
/// metric that exists with a value within the tolerance. The error names the violation and its
/// place ("secondary.evidence[0]: ..."), worded to be sent back to the model.
expected<judge_verdict, std::string> parse_judge(std::string_view reply, const std::vector<metric_fact>& metrics,
                                                 citation_tolerance tolerance = {});

/// The verdict for the next propose prompt ("## Judge's analysis ...").
std::string render_judge(const judge_verdict& verdict);

} // namespace warpforge::llm
