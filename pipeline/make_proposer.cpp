#include "pipeline/llm/proposer.hpp"
#include "pipeline/proposer.hpp"
#include "pipeline/tune_proposer.hpp"

namespace warpforge::pipeline {

parsed_problems problems_of(const config::campaign_spec& spec) {
  parsed_problems out;
  for (const auto& job : spec.jobs)
    out.emplace(job.problem_path.string(), std::make_shared<const config::problem_spec>(job.problem));
  return out;
}

first_proposal first_proposal_of(config::proposer_kind kind) {
  return kind == config::proposer_kind::tune ? first_proposal::while_baseline_races : first_proposal::after_baseline;
}

expected<std::unique_ptr<proposer>, std::string> make_proposer(const config::proposer_spec& spec,
                                                               const llm_context* llm, parsed_problems problems) {
  switch (spec.kind) {
  case config::proposer_kind::tune:
    return std::unique_ptr<proposer>{std::make_unique<tune_proposer>(spec.strategy, spec.seed, std::move(problems))};
  case config::proposer_kind::llm:
  case config::proposer_kind::replay:
    if (llm == nullptr)
      return unexpected{"proposer kind '" + std::string{config::to_string(spec.kind)} +
                        "' needs a model, a run directory and a compiler (the pipeline gives them)"};
    return std::unique_ptr<proposer>{std::make_unique<llm_proposer>(*llm)};
  }
  return unexpected{"proposer kind '" + std::string{config::to_string(spec.kind)} + "' is not in this build"};
}

} // namespace warpforge::pipeline
