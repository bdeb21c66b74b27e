#include "pipeline/llm_proposer.hpp"
#include "pipeline/proposer.hpp"
#include "pipeline/tune_proposer.hpp"

namespace warpforge::pipeline {

expected<std::unique_ptr<proposer>, std::string> make_proposer(const config::proposer_spec& spec,
                                                               const llm_context* llm) {
  switch (spec.kind) {
  case config::proposer_kind::tune:
    return std::unique_ptr<proposer>{std::make_unique<tune_proposer>(spec.strategy, spec.seed)};
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
