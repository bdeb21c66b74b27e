#include "actors/proposer.hpp"

#include "actors/exceptions.hpp"
#include "actors/llm.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/llm/proposer.hpp"

#include <caf/exit_reason.hpp>
#include <caf/sec.hpp>

#include <stdexcept>

namespace warpforge::actors {

namespace {

// A proposer that cannot propose answers that as a value: the scheduler's asks take an error for a
// dead receiver and send the request again, which would ask a failing proposer forever.
caf::result<pipeline::proposal> answer(const pipeline::propose_request& request,
                                       expected<pipeline::proposal, std::string> made) {
  if (!made) {
    logging::get("proposer")->warn("{}: iteration {}: {}", request.job, request.iteration, made.error());
    pipeline::proposal failed;
    failed.failure = made.error();
    return failed;
  }
  return std::move(*made);
}

// One llm proposal: runs the round (minutes of model calls), answers the scheduler, quits.
messages::proposer_actor::behavior_type propose_worker(messages::proposer_actor::pointer self,
                                                       std::shared_ptr<pipeline::proposer> strategy) {
  return {
    [self, strategy](const pipeline::propose_request& request) {
      self->quit();
      return answer(request, strategy->propose(request));
    },
    [](messages::stop_atom) {},
    [](messages::status_atom) { return messages::component_status{}; },
  };
}

std::shared_ptr<pipeline::proposer> make_strategy(caf::actor_system& system, const proposer_config& config) {
  const auto kind = config.spec.kind;
  if (kind != config::proposer_kind::llm && kind != config::proposer_kind::replay) {
    auto made = pipeline::make_proposer(config.spec, nullptr, config.problems);
    if (!made)
      throw std::runtime_error("proposer: " + made.error());
    return std::move(*made);
  }
  pipeline::llm_context context;
  context.llm = config.llm.value_or(config::llm_spec{});
  context.compile = config.compile;
  context.problems = config.problems;
  if (kind == config::proposer_kind::llm)
    context.model = std::make_shared<actor_chat_client>(system);
  else
    context.replay_from = config.spec.replay_from;
  auto made = pipeline::make_proposer(config.spec, &context);
  if (!made)
    throw std::runtime_error("proposer: " + made.error());
  return std::move(*made);
}

} // namespace

caf::result<pipeline::proposal> proposer_state::propose(const pipeline::propose_request& request) {
  auto made = strategy->propose(request);
  ++proposals;
  if (!made)
    ++failures;
  else
    candidates += static_cast<std::int64_t>(made->candidates.size());
  return answer(request, std::move(made));
}

messages::component_status proposer_state::status() const {
  return {std::string{proposer_name}, messages::component_state::running, kind,
          {{"proposals", proposals}, {"candidates", candidates}, {"failures", failures}}};
}

messages::proposer_actor::behavior_type
proposer(messages::proposer_actor::stateful_pointer<proposer_state> self, proposer_config config) {
  keep_exception_text(self);
  self->state.strategy = make_strategy(self->system(), config);
  self->state.concurrent = config.spec.kind == config::proposer_kind::llm || config.spec.kind == config::proposer_kind::replay;
  self->state.kind = std::string{config::to_string(config.spec.kind)};
  return {
    [self](const pipeline::propose_request& request) -> caf::result<pipeline::proposal> {
      if (!self->state.concurrent)
        return self->state.propose(request);
      ++self->state.proposals;
      auto worker = self->spawn<caf::detached>(propose_worker, self->state.strategy);
      return self->delegate(worker, request);
    },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
