#include "pipeline/diagnosis_summary.hpp"

#include "foundation/json/writer.hpp"
#include "pipeline/code_check.hpp"

#include <algorithm>
#include <array>
#include <optional>
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
  optional("peak_fraction", d.roofline.peak_fraction);
  if (d.roofline.binding_axis)
    out.key("binding_axis").value(diagnosis::to_string(*d.roofline.binding_axis));
  if (d.roofline.dominant_precision)
    out.key("precision").value(diagnosis::to_string(*d.roofline.dominant_precision));
  // The hierarchical roofline: what binds the kernel, and how the report says it.
  out.key("binding_kind").value(diagnosis::to_string(d.levels.kind));
  if (d.levels.binding)
    out.key("binding_level").value(diagnosis::to_string(*d.levels.binding));
  out.key("binding_headline").value(d.levels.headline);
  // The work itself, so a report can hold the job's FLOP to the champion's own (CUDA events) time
  // when a later profile did not count them (CUPTI alone has no FLOP counters).
  optional("flop", d.work.flop);
  optional("dram_bytes", d.work.dram_bytes);
  if (auto duration = d.metrics.find("duration"); duration != d.metrics.end())
    out.key("duration").value(duration->second);
  out.key("findings").begin_array();
  for (const auto& f : d.findings)
    out.value(f.rule_id);
  out.end_array();
  out.end_object();
  return std::move(out).str();
}

} // namespace

namespace {

/// Why `m` does not fit the kernel's work, or nullopt when it does (or the work is unknown).
std::optional<std::string> misfit(const sass::method_entry& m, const diagnosis::work_profile& work,
                                  const work_context& context) {
  for (auto need : m.needs) {
    const auto name = "needs " + std::string{sass::to_string(need)} + ": ";
    switch (need) {
      case sass::method_need::arithmetic:
        if (work.arithmetic.verdict == diagnosis::work_verdict::no)
          return name + work.arithmetic.reason;
        break;
      case sass::method_need::matrix_multiply:
        if (work.matrix_multiply.verdict == diagnosis::work_verdict::no)
          return name + work.matrix_multiply.reason;
        break;
      case sass::method_need::several_kernels:
        if (context.kernels <= 1)
          return name + "the problem is one kernel in one launch: nothing to fuse, overlap or "
                        "capture with it";
        break;
    }
  }
  return std::nullopt;
}

/// The diagnosis's budget, with a compute budget that has nothing to compute moved to memory
/// (up to the axis cap), then latency.
diagnosis::method_budget fitted_budget(const diagnosis::diagnosis& d, std::string& note) {
  auto budget = d.budget;
  if (d.work.arithmetic.verdict != diagnosis::work_verdict::no || budget.compute == 0)
    return budget;
  const std::uint32_t cap = diagnosis::roofline_policy{}.budget_axis_cap;
  const std::uint32_t moved = budget.compute;
  while (budget.compute > 0 && budget.memory < cap) {
    --budget.compute;
    ++budget.memory;
  }
  budget.latency += budget.compute;
  budget.compute = 0;
  note = "the compute gap of a kernel without arithmetic is no headroom: its " +
         std::to_string(moved) + " method(s) went to memory and latency";
  return budget;
}

/// Some fired finding that speaks at the kernel's binding level names `m`.
bool fired(const diagnosis::diagnosis& d, const sass::method_entry& m) {
  for (const auto& f : d.findings)
    for (const auto& id : m.findings)
      if (id == f.rule_id && diagnosis::finding_fits_binding(f.rule_id, d.levels.kind))
        return true;
  return false;
}

} // namespace

method_choice choose_methods(const diagnosis::diagnosis& d, int sm, const work_context& context) {
  method_choice choice;
  if (d.near_peak)
    return choice;
  const auto& catalog = sass::method_catalog::builtin();
  const auto budget = fitted_budget(d, choice.budget_note);
  std::array<std::uint32_t, 3> left{budget.compute, budget.memory, budget.latency};
  auto left_on = [&](const sass::method_entry& m) -> std::uint32_t* {
    const auto axis = diagnosis::roofline_axis_from_string(sass::to_string(m.axis));
    return axis ? &left[static_cast<std::size_t>(*axis)] : nullptr;
  };
  auto seen = [&](std::string_view id) {
    for (const auto* c : choice.chosen)
      if (c->id == id)
        return true;
    for (const auto& x : choice.excluded)
      if (x.id == id)
        return true;
    return false;
  };
  // One method: left out with the reason when it does not fit, else taken while its axis has room.
  auto consider = [&](const sass::method_entry& m) {
    if (seen(m.id) || (sm > 0 && m.min_sm > static_cast<std::uint32_t>(sm)))
      return;
    auto why = misfit(m, d.work, context);
    if (!why)
      why = diagnosis::ruled_out_by_problem(m.id, d.work, context.problem);
    if (why) {
      choice.excluded.push_back({m.id, std::move(*why)});
      return;
    }
    auto* room = left_on(m);
    if (room == nullptr || *room == 0)
      return;
    for (const auto* c : choice.chosen)
      if (catalog.coupled(c->id, m.id))
        return;
    choice.chosen.push_back(&m);
    --*room;
  };
  // The binding level's advice first: what the hierarchical roofline says to try at its level.
  for (const auto& advised : d.advice.first)
    if (const auto* m = catalog.find(advised.id))
      consider(*m);
  for (auto axis : sass::all_method_axes)
    for (const auto* m : catalog.on_axis(axis))
      if (fired(d, *m))
        consider(*m);
  // Budget the findings left unused goes to the level's advice whose own axis had none (an
  // L1-bound GEMM: the memory gap is L1's, near 0, yet shared-memory tiling is its second step).
  for (const auto& advised : d.advice.first) {
    auto most = std::max_element(left.begin(), left.end());
    const auto* m = catalog.find(advised.id);
    if (*most == 0 || m == nullptr || seen(m->id) || (sm > 0 && m->min_sm > static_cast<std::uint32_t>(sm)))
      continue;
    bool coupled = false;
    for (const auto* c : choice.chosen)
      coupled = coupled || catalog.coupled(c->id, m->id);
    if (coupled)
      continue;
    choice.chosen.push_back(m);
    --*most;
  }
  return choice;
}

std::vector<const sass::method_entry*> candidate_methods(const diagnosis::diagnosis& d, int sm) {
  return choose_methods(d, sm).chosen;
}

work_context work_context_of(const job_setup& job) {
  work_context context;
  context.problem.known = true;
  context.problem.lower_precision_allowed = lower_precision_allowed(job.problem);
  context.problem.rtol = job.problem.reference.rtol;
  if (job.defaults.flop)
    context.problem.declared_flop = static_cast<double>(*job.defaults.flop);
  return context;
}

diagnosis_summary summarize(const diagnosis::diagnosis& d, const branch_ref& of, int gpu, int sm,
                            const work_context& context) {
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
  auto choice = choose_methods(d, sm, context);
  for (const auto* m : choice.chosen)
    s.methods.push_back({m->id, m->priority, m->name});
  s.excluded = std::move(choice.excluded);
  s.gaps_json = gaps_json(d);
  return s;
}

} // namespace warpforge::pipeline
