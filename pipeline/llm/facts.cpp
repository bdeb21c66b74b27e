#include "pipeline/llm/facts.hpp"

#include "diagnosis/metric_schema.hpp"
#include "diagnosis/render.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/records.hpp"
#include "sass/method_catalog.hpp"

#include <simdjson.h>

#include <fstream>
#include <sstream>

namespace warpforge::pipeline {

namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string launch_text(const config::launch_geometry& l) {
  return "grid (" + std::to_string(l.grid[0]) + ", " + std::to_string(l.grid[1]) + ", " + std::to_string(l.grid[2]) +
         "), block (" + std::to_string(l.block[0]) + ", " + std::to_string(l.block[1]) + ", " +
         std::to_string(l.block[2]) + "), dynamic shared memory " + std::to_string(l.dynamic_smem_bytes) + " bytes";
}

std::string tolerance_text(const config::reference_spec& r) {
  auto text = [](const std::optional<double>& v) { return v ? std::to_string(*v) : std::string{"the dtype's default"}; };
  return "rtol " + text(r.rtol) + ", atol " + text(r.atol) + " (compared against the reference on fresh random inputs)";
}

std::vector<llm::metric_fact> metric_facts_of(const diagnosis::diagnosis& d) {
  std::vector<llm::metric_fact> out;
  const auto& schema = diagnosis::builtin_metric_schema();
  for (const auto& def : schema.metrics())
    if (auto v = d.metrics.find(def.key); v != d.metrics.end())
      // A ratio (0..1) goes as "ratio", which the prompt shows as a percentage (llm/prompt shown());
      // its symbol "%" would show 0.551 as "0.551 %" where the roofline lines say 55.1 %.
      out.push_back({def.section, def.key, v->second,
                     def.unit == diagnosis::metric_unit::ratio ? std::string{"ratio"}
                                                               : std::string{diagnosis::symbol(def.unit)}});
  return out;
}

llm::diagnosis_facts facts_of(const diagnosis::diagnosis& d, const diagnosis_summary& summary,
                              const method_choice& choice) {
  llm::diagnosis_facts f;
  // The binding level of the hierarchical roofline, not the widest gap: a kernel bound by L1 has
  // its widest gap at DRAM (issue 26).
  f.bottleneck = d.levels.headline;
  f.binding = std::string{diagnosis::to_string(d.levels.kind)};
  for (const auto& finding : d.findings)
    if (!diagnosis::finding_fits_binding(finding.rule_id, d.levels.kind))
      f.off_level.push_back(finding.rule_id);
  std::istringstream rendered{diagnosis::render_text(d)};
  for (std::string line; std::getline(rendered, line);)
    if (!line.empty())
      f.roofline.push_back(line);
  f.method_budget = {{"compute", summary.budget_compute}, {"memory", summary.budget_memory},
                     {"latency", summary.budget_latency}};
  for (const auto& finding : d.findings) {
    const auto action = diagnosis::finding_fits_binding(finding.rule_id, d.levels.kind)
                            ? finding.action
                            : diagnosis::off_level_action(d);
    f.fired.push_back({finding.rule_id, std::string{diagnosis::to_string(finding.level)},
                       finding.text + (action.empty() ? "" : " -> " + action)});
  }
  f.metrics = metric_facts_of(d);
  for (const auto* m : choice.chosen)
    f.candidate_methods.push_back(m->id);
  // What the work or the problem rules out, with the reason: the model should not spend a round on it.
  for (const auto& x : choice.excluded)
    f.roofline.push_back("not a candidate: " + x.id + ": " + x.reason);
  return f;
}

// Without a metric file: what the summary carries.
llm::diagnosis_facts facts_of(const diagnosis_summary& summary) {
  llm::diagnosis_facts f;
  // The binding level as the gaps row recorded it; a row from before it names the widest gap.
  f.bottleneck = std::string{diagnosis::to_string(summary.widest)};
  simdjson::dom::parser parser;
  simdjson::dom::object gaps;
  std::string_view headline, kind;
  if (parser.parse(summary.gaps_json).get(gaps) == simdjson::SUCCESS &&
      gaps["binding_headline"].get(headline) == simdjson::SUCCESS &&
      gaps["binding_kind"].get(kind) == simdjson::SUCCESS) {
    f.bottleneck = std::string{headline};
    f.binding = std::string{kind};
  }
  f.roofline = {"gaps (0 = at the peak): compute " + std::to_string(summary.gap_compute) + ", memory " +
                std::to_string(summary.gap_memory) + ", latency " + std::to_string(summary.gap_latency)};
  f.method_budget = {{"compute", summary.budget_compute}, {"memory", summary.budget_memory},
                     {"latency", summary.budget_latency}};
  for (const auto& finding : summary.findings)
    f.fired.push_back({finding.rule_id, std::string{diagnosis::to_string(finding.level)},
                       finding.text + (finding.action.empty() ? "" : " -> " + finding.action)});
  for (const auto& m : summary.methods)
    f.candidate_methods.push_back(m.id);
  return f;
}

} // namespace

llm::problem_facts problem_facts_of(const job_setup& job, const llm::kernel_contract& contract) {
  llm::problem_facts f;
  f.name = job.problem.name;
  f.entry = contract.entry;
  f.declaration = llm::entry_declaration(contract);
  // A variant is compiled at the default point (llm_proposer), so its template arguments are there.
  if (!contract.template_head.empty())
    f.instantiation = job.defaults.entry;
  for (const auto& d : job.problem.dims)
    f.dims.emplace_back(d.name, d.value);
  f.launch = launch_text(job.defaults.launch);
  f.tolerances = tolerance_text(job.problem.reference);
  for (const auto& a : job.problem.args)
    if (const auto* buffer = std::get_if<config::buffer_spec>(&a); buffer && buffer->role != config::arg_role::input)
      f.outputs += (f.outputs.empty() ? "" : ", ") + buffer->name;
  // Your code stands alone (candidate::compiled_defines): say so, since the spec below and the
  // problem's own kernel speak of tunables passed as -D, which holds for that kernel only.
  std::string tunables;
  for (const auto& t : job.problem.tunables)
    tunables += (tunables.empty() ? "" : ", ") + t.name;
  if (!tunables.empty())
    f.notes = "Your variants are compiled with the `defines` they declare and no others: the problem's tunables (" +
              tunables + ") are passed to its own kernel, not to yours. Declare in `defines` any you use, or keep "
              "an #ifndef default in the code.\n";
  f.notes += "The problem spec (" + job.problem_path.filename().string() + "):\n" + read_text(job.problem_path);
  return f;
}

diagnosed_facts diagnosis_facts_of(const std::filesystem::path& run_dir, const std::string& job,
                                   const diagnosis_summary& summary, const work_context& context) {
  diagnosed_facts out;
  const auto file = branch_folder(run_dir, job, summary.of.iteration, summary.of.branch) /
                    ("metrics-gpu" + std::to_string(summary.gpu) + ".json");
  auto kept = read_metric_file(file);
  std::optional<diagnosis::diagnosis> d;
  if (kept)
    d = diagnose_metrics(kept->metrics, kept->device);
  if (d) {
    out.gpu.name = d->gpu.name;
    out.gpu.arch = kept->device.arch();
    std::istringstream lines{diagnosis::to_text(d->gpu)};
    for (std::string line; std::getline(lines, line);)
      if (!line.empty())
        out.gpu.specs.emplace_back("", line);
    // The candidates again, now with the problem's constraints (the profiler had no problem at hand).
    out.diagnosis = facts_of(*d, summary, choose_methods(*d, kept->device.sm_major * 10 + kept->device.sm_minor, context));
  } else if (summary.diagnosed) {
    out.diagnosis = facts_of(summary);
  }
  return out;
}

std::vector<llm::method_fact> method_facts() {
  std::vector<llm::method_fact> out;
  for (const auto& m : sass::method_catalog::builtin().methods())
    out.push_back({m.id, std::string{sass::to_string(m.axis)}, m.name});
  return out;
}

} // namespace warpforge::pipeline
