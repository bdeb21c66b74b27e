#include "diagnosis/diagnose.hpp"

namespace warpforge::diagnosis {

diagnosis diagnose(const metric_values& measured, const gpu_profile& gpu,
                   const roofline_policy& thresholds) {
  return diagnose(measured, gpu, thresholds, builtin_metric_schema(), builtin_rules());
}

diagnosis diagnose(const metric_values& measured, const gpu_profile& gpu,
                   const roofline_policy& thresholds, const metric_schema& schema,
                   const rule_set& rules) {
  diagnosis out;
  auto completed = schema.complete(measured);
  out.metrics = std::move(completed.values);
  out.not_derived = std::move(completed.not_derived);
  out.gpu = gpu;

  out.gaps = compute_gaps(out.metrics, thresholds);
  out.near_peak = is_near_peak(out.gaps, thresholds);
  out.widest = widest_gap_of(out.gaps, thresholds);
  out.budget = allocate_budget(out.gaps, thresholds);
  out.roofline = locate_on_roofline(out.metrics, gpu);
  out.work = profile_work(out.metrics);
  out.levels = locate_in_hierarchy(out.metrics);
  out.advice = advise_for_level(out.levels, out.work, out.metrics);

  auto evaluation = evaluate_rules(rules, out.metrics, schema);
  out.findings = std::move(evaluation.fired);
  out.not_evaluated = std::move(evaluation.not_evaluated);
  // A missing derived metric says which of its own inputs were missing.
  for (auto& rule : out.not_evaluated)
    for (const auto& key : rule.problem.names)
      for (const auto& gap : out.not_derived)
        if (gap.key == key)
          rule.problem.message += " (" + key + ": " + gap.problem.message + ")";

  if (out.gaps.degraded)
    out.notes.push_back("no roofline metric was measured: every gap is the degraded default");
  else if (!out.gaps.max_stall)
    out.notes.push_back("no latency stall was measured: the latency gap is the default");
  out.notes.insert(out.notes.end(), gpu.notes.begin(), gpu.notes.end());
  return out;
}

} // namespace warpforge::diagnosis
