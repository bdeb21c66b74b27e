#include "pipeline/diagnosis_summary.hpp"

#include "json/writer.hpp"
#include "sass/method_catalog.hpp"

namespace warpforge::pipeline {

namespace {

// The iteration row's gaps column (docs/run-directory.md): the gaps, near-peak, the roofline
// point when known, and the fired rules' ids.
std::string gaps_json(const diagnosis::diagnosis& d) {
  json::writer out;
  out.begin_object();
  out.key("compute").value(d.gaps.compute);
  out.key("memory").value(d.gaps.memory);
  out.key("latency").value(d.gaps.latency);
  out.key("near_peak").value(d.near_peak);
  auto optional = [&](const char* key, std::optional<double> v) {
    if (v)
      out.key(key).value(*v);
  };
  optional("arithmetic_intensity", d.roofline.arithmetic_intensity);
  optional("achieved_flops", d.roofline.achieved_flops);
  optional("achieved_bandwidth", d.roofline.achieved_bandwidth);
  optional("peak_flops", d.roofline.peak_flops);
  optional("peak_bandwidth", d.roofline.peak_bandwidth);
  out.key("findings").begin_array();
  for (const auto& f : d.findings)
    out.value(f.rule_id);
  out.end_array();
  out.end_object();
  return std::move(out).str();
}

} // namespace

std::vector<const sass::method_entry*> candidate_methods(const diagnosis::diagnosis& d, int sm) {
  std::vector<const sass::method_entry*> chosen;
  if (d.near_peak)
    return chosen;
  const auto& catalog = sass::method_catalog::builtin();
  auto fired = [&](const sass::method_entry& m) {
    for (const auto& f : d.findings)
      for (const auto& id : m.findings)
        if (id == f.rule_id)
          return true;
    return false;
  };
  for (auto axis : sass::all_method_axes) {
    const auto roofline_axis = diagnosis::roofline_axis_from_string(sass::to_string(axis));
    std::uint32_t budget = roofline_axis ? d.budget.of(*roofline_axis) : 0;
    for (const auto* m : catalog.on_axis(axis)) {
      if (budget == 0)
        break;
      if (!fired(*m) || (sm > 0 && m->min_sm > static_cast<std::uint32_t>(sm)))
        continue;
      bool coupled = false;
      for (const auto* c : chosen)
        coupled = coupled || catalog.coupled(c->id, m->id);
      if (coupled)
        continue;
      chosen.push_back(m);
      --budget;
    }
  }
  return chosen;
}

diagnosis_summary summarize(const diagnosis::diagnosis& d, const branch_ref& of, int gpu, int sm) {
  diagnosis_summary s;
  s.of = of;
  s.gpu = gpu;
  s.diagnosed = true;
  s.gap_compute = d.gaps.compute;
  s.gap_memory = d.gaps.memory;
  s.gap_latency = d.gaps.latency;
  s.near_peak = d.near_peak;
  s.widest = d.widest;
  s.budget_compute = d.budget.compute;
  s.budget_memory = d.budget.memory;
  s.budget_latency = d.budget.latency;
  for (const auto& f : d.findings)
    s.findings.push_back({f.rule_id, f.level, f.text, f.action});
  for (const auto* m : candidate_methods(d, sm))
    s.methods.push_back({m->id, m->priority, m->name});
  s.gaps_json = gaps_json(d);
  return s;
}

} // namespace warpforge::pipeline
