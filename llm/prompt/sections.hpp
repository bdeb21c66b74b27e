#pragma once
// The prompt's sections, each rendered from its facts as a markdown block that starts with a
// "## " heading and ends with a newline. Shared by the propose, fix and judge prompts so the
// model reads the same facts in the same words whichever question it is asked.

#include "llm/prompt/facts.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

/// A metric as the model sees it: a "ratio" (0..1) becomes a percentage (unit "%"), so the
/// model reads and cites the numbers Nsight Compute would show; other units stay as they are.
struct shown_metric {
  double value = 0;
  std::string unit;
};
shown_metric shown(const metric_fact& metric);

/// 0 for "critical", 1 "warning", 2 "info", 3 anything else: most severe first.
int severity_rank(std::string_view severity);
/// `fired` most severe first, the given order kept within a severity.
std::vector<rule_fact> by_severity(std::vector<rule_fact> fired);

/// A number in at most 4 significant digits, without exponent noise: "91.23", "1.2e+09", "0.0042".
std::string format_number(double value);
/// "2.41x".
std::string format_speedup(double ratio);
/// "12.5 us".
std::string format_us(double microseconds);

/// `code` in a ```cuda fence (a fence long enough that the code cannot close it).
std::string code_block(std::string_view code, std::string_view language = "cuda");

/// The GPU and its figures; without figures (no GPU profiled), says plainly that none are given.
std::string render_gpu(const gpu_facts& gpu);
/// The diagnosis section's text when the best kernel was not profiled: what to reason from, and
/// never "the GPU's peaks" when the GPU section gave none.
std::string render_not_profiled(const gpu_facts& gpu);
std::string render_problem(const problem_facts& problem);
/// The catalog grouped by axis, one "- id: summary" line per method.
std::string render_methods(const std::vector<method_fact>& methods);
/// Metrics grouped by section in first-seen order: "- dram_throughput = 91.2 %".
std::string render_metrics(const std::vector<metric_fact>& metrics);
/// Findings as "- [severity] id: text" lines, most severe first; "- none" when there are none.
std::string render_findings(const std::vector<rule_fact>& fired);
/// Bottleneck, roofline lines, method budget, fired findings, key metrics, candidate methods.
std::string render_diagnosis(const diagnosis_facts& diagnosis);
/// The current best kernel with its time against the baseline.
std::string render_best(const prompt_inputs& inputs);

} // namespace warpforge::llm
