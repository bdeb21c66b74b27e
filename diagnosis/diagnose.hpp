#pragma once
// diagnose(): one kernel's metrics -> roofline gaps, near-peak verdict, method budget, roofline
// point, the hierarchical roofline (the binding level) with its advice, and rule findings. The diagnoser actor wraps this; it is plain data in and out, no CAF.
//
//   gpu_profile gpu = describe_gpu(builtin_gpu_table(), device);
//   diagnosis d = diagnose(measured, gpu);          // built-in schema and rules, default thresholds
//   std::cout << render_text(d);                    // render.hpp
//
// `measured` holds schema keys in schema units (ncu_csv.hpp / a CUPTI source map Nsight names to
// them). Derived metrics are computed here; rules that need unmeasured metrics are listed as not
// evaluated, with the missing keys.

#include "diagnosis/gpu_specs.hpp"
#include "diagnosis/hierarchical_roofline.hpp"
#include "diagnosis/method_advice.hpp"
#include "diagnosis/metric_schema.hpp"
#include "diagnosis/roofline.hpp"
#include "diagnosis/rules.hpp"
#include "diagnosis/work_profile.hpp"

#include <string>
#include <vector>

namespace warpforge::diagnosis {

struct diagnosis {
  metric_values metrics;                       // measured + derived, schema units
  std::vector<derived_gap> not_derived;        // derived metrics without a value, and why
  gpu_profile gpu;                             // the GPU the metrics were taken on
  roofline_gaps gaps;                          // Δc, Δm, Δl
  bool near_peak = false;                      // all gaps < thresholds.near_peak_gap: stop
  widest_gap widest = widest_gap::near_peak;   // the seed's "bound"
  method_budget budget;                        // methods per axis for the next iteration (unused
                                               // when near_peak: the loop stops)
  roofline_point roofline;                     // intensity, achieved rates, fractions of peak
  hierarchy levels;                            // L1, L2, DRAM and the pipes: which level binds
  level_advice advice;                         // what to try first at the binding level
  work_profile work;                           // does it compute, does it multiply matrices
  std::vector<finding> findings;               // fired rules: critical, warning, info
  std::vector<unevaluated_rule> not_evaluated; // rules without a verdict, and why
  std::vector<std::string> notes;              // for people: degraded data, GPU table gaps
};

/// With the built-in schema and rule matrix.
diagnosis diagnose(const metric_values& measured, const gpu_profile& gpu,
                   const roofline_policy& thresholds = {});

/// With a given schema and rule matrix (tests, user-supplied data files).
diagnosis diagnose(const metric_values& measured, const gpu_profile& gpu,
                   const roofline_policy& thresholds, const metric_schema& schema,
                   const rule_set& rules);

} // namespace warpforge::diagnosis
