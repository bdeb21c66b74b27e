#pragma once
// The pipeline's nouns in the words of a prompt: the job's problem, its best kernel's diagnosis
// (re-derived from the metric set kept in the profiled branch's folder, so the prompt has every
// metric by section, not only the summary), the method catalog, and this run's attempts.
// llm/prompt knows nothing of the pipeline; this is the one place that translates.

#include "llm/prompt/facts.hpp"
#include "llm/reply/contract.hpp"
#include "pipeline/job_setup.hpp"
#include "pipeline/proposer.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

/// The problem as the model must respect it: the entry as the contract declares it (linkage,
/// template head, parameter types) and the instantiation compiled, sizes, launch, tolerances, and
/// the spec's own text (stable: it goes into the cached part of the prompt).
llm::problem_facts problem_facts_of(const job_setup& job, const llm::kernel_contract& contract);

/// The GPU and the diagnosis of the kernel profiled in `summary`, read back from its metric file in
/// `run_dir`; none when it was not diagnosed or the file is gone (the summary's findings are used).
struct diagnosed_facts {
  llm::gpu_facts gpu;
  std::optional<llm::diagnosis_facts> diagnosis;
};
/// `context` carries the job's problem constraints, so the candidate methods respect them.
diagnosed_facts diagnosis_facts_of(const std::filesystem::path& run_dir, const std::string& job,
                                   const diagnosis_summary& summary, const work_context& context = {});

/// Every method of the built-in catalog, id, axis and name.
std::vector<llm::method_fact> method_facts();

} // namespace warpforge::pipeline
