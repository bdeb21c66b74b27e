#include "actors/proposer.hpp"

#include "actors/exceptions.hpp"
#include "logging/logging.hpp"

#include <caf/exit_reason.hpp>
#include <caf/sec.hpp>

#include <stdexcept>

namespace warpforge::actors {

caf::result<pipeline::proposal> proposer_state::propose(const pipeline::propose_request& request) {
  auto answer = strategy->propose(request);
  ++proposals;
  if (!answer) {
    ++failures;
    logging::get("proposer")->warn("{}: iteration {}: {}", request.job, request.iteration, answer.error());
    return caf::make_error(caf::sec::runtime_error, answer.error());
  }
  candidates += static_cast<std::int64_t>(answer->candidates.size());
  return std::move(*answer);
}

messages::component_status proposer_state::status() const {
  return {std::string{proposer_name}, messages::component_state::running, kind,
          {{"proposals", proposals}, {"candidates", candidates}, {"failures", failures}}};
}

messages::proposer_actor::behavior_type
proposer(messages::proposer_actor::stateful_pointer<proposer_state> self, config::proposer_spec spec) {
  keep_exception_text(self);
  auto made = pipeline::make_proposer(spec);
  if (!made)
    throw std::runtime_error("proposer: " + made.error());
  self->state.strategy = std::move(*made);
  self->state.kind = std::string{config::to_string(spec.kind)};
  return {
    [self](const pipeline::propose_request& request) { return self->state.propose(request); },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
