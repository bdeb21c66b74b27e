#include "diagnosis/render.hpp"

#include <cstdio>

namespace warpforge::diagnosis {

namespace {

constexpr std::size_t label_width = 52; // characters before the value column

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  else
    text += ' ';
  return text;
}

std::string optional_value(const std::optional<double>& value, metric_unit unit) {
  return value ? format_value(*value, unit) : std::string{"n/a"};
}

void render_metrics(std::string& out, const diagnosis& result, const metric_schema& schema) {
  out += "Metrics\n";
  for (const auto& section : schema.sections()) {
    std::string lines;
    for (const auto& m : schema.metrics()) {
      if (m.section != section)
        continue;
      const auto value = result.metrics.find(m.key);
      if (value == result.metrics.end())
        continue;
      lines += "    " + padded(m.label, label_width) + format_value(value->second, m.unit) + "\n";
    }
    if (!lines.empty())
      out += "  " + section + "\n" + lines;
  }
  std::string others;
  for (const auto& [key, value] : result.metrics)
    if (schema.find(key) == nullptr)
      others += "    " + padded(key, label_width) + format_value(value, metric_unit::count) + "\n";
  if (!others.empty())
    out += "  Other metrics (not in the schema)\n" + others;
  if (result.metrics.empty())
    out += "  (none measured)\n";
}

// The fraction of peak on the axis that binds the kernel, naming the axis and the peak.
void render_peak_fraction(std::string& out, const roofline_point& r) {
  out += "  peak fraction: ";
  if (!r.binding_axis || !r.peak_fraction) {
    out += "unknown (FLOP or DRAM bytes not measured: the binding axis cannot be told)\n";
    return;
  }
  const bool compute = *r.binding_axis == roofline_axis::compute;
  out += format_value(*r.peak_fraction, metric_unit::ratio) + " on the " +
         std::string{to_string(*r.binding_axis)} + " axis, against ";
  out += compute ? format_value(*r.peak_flops, metric_unit::flop_per_second) + " (" +
                       std::string{to_string(*r.dominant_precision)} + ", non-tensor)"
                 : format_value(*r.peak_bandwidth, metric_unit::bytes_per_second) + " (DRAM)";
  out += "\n";
}

// What work the kernel does: which candidate methods can fit it.
void render_work(std::string& out, const work_profile& w) {
  out += "Work\n  arithmetic: " + std::string{to_string(w.arithmetic.verdict)} + " (" +
         w.arithmetic.reason + ")\n  matrix multiply: " +
         std::string{to_string(w.matrix_multiply.verdict)} + " (" + w.matrix_multiply.reason +
         ")\n";
}

// The hierarchical roofline: the binding level first, every level's gap, and what to do there.
void render_levels(std::string& out, const diagnosis& result) {
  const auto& h = result.levels;
  out += "  binding level: " + h.headline + "\n";
  if (!h.levels.empty()) {
    out += "  gap per level (0 = at its roof):";
    for (const auto& r : h.levels)
      out += " " + std::string{label(r.level)} + " " + fixed(r.gap, 2) + ",";
    out.back() = '\n';
  }
  if (!result.advice.playbook.empty())
    out += "  at this level: " + result.advice.playbook + "\n";
  if (!result.advice.first.empty()) {
    out += "  try first at this level:";
    for (const auto& m : result.advice.first)
      out += " " + m.id + " (" + m.why + ");";
    out.back() = '\n';
  }
}

void render_roofline(std::string& out, const diagnosis& result) {
  const auto& g = result.gaps;
  out += "Roofline\n";
  render_levels(out, result);
  out += "  gaps: compute " + fixed(g.compute, 2) + ", memory " + fixed(g.memory, 2);
  if (g.memory_key == "l1_throughput" || g.memory_key == "l2_throughput")
    out += std::string{" (from "} + (g.memory_key == "l1_throughput" ? "L1/shared" : "L2") + ")";
  out += ", latency " + fixed(g.latency, 2);
  if (g.degraded)
    out += " (degraded: no profiler data)";
  else if (g.max_stall)
    out += " (largest stall: " + g.max_stall_key + ")";
  else
    out += " (latency: default, no stall measured)";
  out += "\n";
  out += "  near peak: " + std::string{result.near_peak ? "yes: stop optimising" : "no"} +
         "; widest gap: " + std::string{to_string(result.widest)} + "\n";
  out += "  method budget: compute " + std::to_string(result.budget.compute) + ", memory " +
         std::to_string(result.budget.memory) + ", latency " +
         std::to_string(result.budget.latency) + " (total " +
         std::to_string(result.budget.total()) + ")\n";

  const auto& r = result.roofline;
  out += "  arithmetic intensity: " +
         optional_value(r.arithmetic_intensity, metric_unit::flop_per_byte);
  if (r.ridge_point)
    out += " (ridge point " + format_value(*r.ridge_point, metric_unit::flop_per_byte) + ")";
  out += "\n";
  out += "  achieved: " + optional_value(r.achieved_flops, metric_unit::flop_per_second);
  if (r.dominant_precision)
    out += " (mostly " + std::string{to_string(*r.dominant_precision)} + ")";
  if (r.compute_fraction)
    out += " = " + format_value(*r.compute_fraction, metric_unit::ratio) + " of peak " +
           format_value(*r.peak_flops, metric_unit::flop_per_second);
  if (r.attainable_fraction)
    out += ", " + format_value(*r.attainable_fraction, metric_unit::ratio) + " of attainable " +
           format_value(*r.attainable_flops, metric_unit::flop_per_second);
  out += "; DRAM " + optional_value(r.achieved_bandwidth, metric_unit::bytes_per_second);
  if (r.bandwidth_fraction)
    out += " = " + format_value(*r.bandwidth_fraction, metric_unit::ratio) + " of peak " +
           format_value(*r.peak_bandwidth, metric_unit::bytes_per_second);
  out += "\n";
  render_peak_fraction(out, r);
}

} // namespace

std::string off_level_action(const diagnosis& result) {
  return "none at this level: this finding's action is for a kernel bound at DRAM, and this one is " +
         std::string{to_string(result.levels.kind)} + " (follow the binding level's advice above)";
}

namespace {

void render_findings(std::string& out, const diagnosis& result) {
  out += "Findings (" + std::to_string(result.findings.size()) + ")\n";
  if (result.findings.empty())
    out += "  (no rule fired)\n";
  for (const auto& f : result.findings) {
    out += "  [" + std::string{to_string(f.level)} + "] " + f.rule_id + ": " + f.text + "\n";
    out += "      action: " + (finding_fits_binding(f.rule_id, result.levels.kind) ? f.action : off_level_action(result)) +
           "\n";
    out += "      source: " + f.source + "\n";
  }
  if (!result.not_evaluated.empty()) {
    out += "Not evaluated (" + std::to_string(result.not_evaluated.size()) + ")\n";
    for (const auto& r : result.not_evaluated)
      out += "  " + r.rule_id + ": " + r.problem.message + "\n";
  }
}

} // namespace

std::string render_text(const diagnosis& result, const metric_schema& schema) {
  std::string out =
      "GPU: " + (result.gpu.name.empty() ? std::string{"(unnamed)"} : result.gpu.name);
  if (result.gpu.spec)
    out += " (" + result.gpu.spec->label + ", " + result.gpu.spec->arch + ")";
  else
    out += " (not in the GPU table)";
  out += "\n";
  render_metrics(out, result, schema);
  render_roofline(out, result);
  render_work(out, result.work);
  render_findings(out, result);
  for (const auto& note : result.notes)
    out += "note: " + note + "\n";
  return out;
}

std::string render_text(const diagnosis& result) {
  return render_text(result, builtin_metric_schema());
}

} // namespace warpforge::diagnosis
