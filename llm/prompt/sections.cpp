#include "llm/prompt/sections.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace warpforge::llm {

int severity_rank(std::string_view severity) {
  constexpr std::array<std::string_view, 3> order{"critical", "warning", "info"};
  return static_cast<int>(std::find(order.begin(), order.end(), severity) - order.begin());
}

std::vector<rule_fact> by_severity(std::vector<rule_fact> fired) {
  std::stable_sort(fired.begin(), fired.end(), [](const rule_fact& a, const rule_fact& b) {
    return severity_rank(a.severity) < severity_rank(b.severity);
  });
  return fired;
}

std::string render_findings(const std::vector<rule_fact>& fired) {
  std::string out;
  for (const auto& f : by_severity(fired))
    out += "- [" + f.severity + "] " + f.id + ": " + f.text + "\n";
  return out.empty() ? std::string{"- none\n"} : out;
}

shown_metric shown(const metric_fact& metric) {
  if (metric.unit == "ratio")
    return {metric.value * 100.0, "%"};
  return {metric.value, metric.unit};
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string format_speedup(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

std::string format_us(double microseconds) {
  return format_number(microseconds) + " us";
}

std::string code_block(std::string_view code, std::string_view language) {
  // A fence one backtick longer than the longest run inside the code, so the code cannot end it.
  std::size_t longest = 0, run = 0;
  for (char c : code) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + std::string{language} + "\n" + std::string{code};
  if (!code.empty() && code.back() != '\n')
    out += '\n';
  return out + fence + "\n";
}

bool has_figures(const gpu_facts& gpu) { return !gpu.specs.empty(); }

std::string render_gpu(const gpu_facts& gpu) {
  if (!has_figures(gpu)) {
    std::string out = "## GPU\n";
    if (!gpu.name.empty())
      out += gpu.name + "\n";
    if (!gpu.arch.empty())
      out += "Target architecture: " + gpu.arch + "\n";
    return out + "No GPU figures are available: no GPU was profiled for this job, so no peak FLOP/s, bandwidth, "
                 "clock or cache size is given here. Do not assume any.\n";
  }
  std::string out = "## GPU\n" + gpu.name + " (" + gpu.arch + ")\n";
  for (const auto& [label, value] : gpu.specs)
    out += "- " + (label.empty() ? value : label + ": " + value) + "\n";
  return out;
}

std::string render_not_profiled(const gpu_facts& gpu) {
  if (!has_figures(gpu))
    return "Not profiled (no counters were read, and no GPU figures are available): reason from the code and "
           "the problem's sizes (the bytes each output needs, the arithmetic per output, the reuse a tile "
           "gives); no measured figure or peak is given, so do not quote one.\n";
  return "Not profiled (no counters were read): reason from the code, the problem's sizes and the GPU's "
         "figures above.\n";
}

std::string render_problem(const problem_facts& p) {
  std::string out = "## Problem: " + p.name + "\n";
  out += "Entry point: " + p.declaration;
  if (!p.instantiation.empty())
    out += ", compiled and launched as " + p.instantiation;
  out += "\n";
  if (!p.dims.empty()) {
    out += "Dimensions:";
    for (const auto& [name, value] : p.dims)
      out += " " + name + " = " + std::to_string(value) + ";";
    out.back() = '\n';
  }
  if (!p.launch.empty())
    out += "Launch geometry: " + p.launch + "\n";
  if (!p.outputs.empty())
    out += "Outputs: " + p.outputs + "\n";
  if (!p.tolerances.empty())
    out += "Correctness: outputs are compared with the reference within " + p.tolerances + "\n";
  if (!p.notes.empty())
    out += "Notes: " + p.notes + "\n";
  return out;
}

std::string render_methods(const std::vector<method_fact>& methods) {
  std::string out = "## Method catalog (claim methods by these ids)\n";
  std::vector<std::string> axes;
  for (const auto& m : methods)
    if (std::find(axes.begin(), axes.end(), m.axis) == axes.end())
      axes.push_back(m.axis);
  for (const auto& axis : axes) {
    out += "### " + axis + "\n";
    for (const auto& m : methods)
      if (m.axis == axis)
        out += "- " + m.id + ": " + m.summary + "\n";
  }
  return out;
}

std::string render_metrics(const std::vector<metric_fact>& metrics) {
  std::vector<std::string> sections;
  for (const auto& m : metrics)
    if (std::find(sections.begin(), sections.end(), m.section) == sections.end())
      sections.push_back(m.section);
  std::string out;
  for (const auto& section : sections) {
    out += "### " + section + "\n";
    for (const auto& m : metrics) {
      if (m.section != section)
        continue;
      const auto s = shown(m);
      out += "- " + m.name + " = " + format_number(s.value) + (s.unit.empty() ? "" : " " + s.unit) + "\n";
    }
  }
  return out;
}

std::string render_diagnosis(const diagnosis_facts& d) {
  std::string out = "## Diagnosis of the current best\nBottleneck: " + d.bottleneck + "\n";
  if (!d.roofline.empty()) {
    out += "Roofline:\n";
    for (const auto& line : d.roofline)
      out += "- " + line + "\n";
  }
  if (!d.method_budget.empty()) {
    out += "Method budget for this round (methods per axis):";
    for (const auto& [axis, count] : d.method_budget)
      out += " " + axis + " " + std::to_string(count) + ",";
    out.back() = '\n';
  }
  out += "Fired findings, most severe first:\n" + render_findings(d.fired);
  if (!d.metrics.empty())
    out += "Key metrics (ratios shown as %):\n" + render_metrics(d.metrics);
  if (!d.candidate_methods.empty()) {
    out += "Candidate methods (fit the findings, the budget and this GPU), best first:";
    for (const auto& id : d.candidate_methods)
      out += " " + id + ",";
    out.back() = '\n';
  }
  return out;
}

std::string render_best(const prompt_inputs& in) {
  std::string out = "## Current best kernel\n";
  if (in.best_us)
    out += "Time: " + format_us(*in.best_us);
  if (in.best_us && in.baseline_us && *in.best_us > 0)
    out += " (baseline " + format_us(*in.baseline_us) + ", " + format_speedup(*in.baseline_us / *in.best_us) +
           " the baseline's speed)";
  if (in.best_us)
    out += "\n";
  return out + code_block(in.best_source);
}

} // namespace warpforge::llm
