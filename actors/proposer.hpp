#pragma once
// proposer: a thin shell over one pipeline::proposer (the campaign's kind). The tuner answers at
// once, in the actor. The llm proposer (and its replay) talks to a model for minutes, so each of
// its requests runs in a detached worker of its own and the jobs' proposals overlap; the model is
// reached through the llm actor. Proposers are restartable (their memory is the request and the
// run directory), so a restarted proposer answers as the one before it would have.

#include "config/campaign_spec.hpp"
#include "messages/proposer.hpp"
#include "pipeline/build.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <memory>
#include <optional>

namespace warpforge::actors {

inline constexpr std::string_view proposer_name = "proposer";

/// What the proposer actor is made from.
struct proposer_config {
  config::proposer_spec spec;
  std::optional<config::llm_spec> llm;  // the llm and replay kinds' settings (defaults when none)
  pipeline::compile_function compile;   // their compile-fix loop (NVRTC through the cache)
  pipeline::parsed_problems problems;   // the campaign's problems as loaded: the tuner's search
                                        // spaces come from these, never from the files again
};

struct proposer_state {
  static inline const char* name = "proposer";

  std::shared_ptr<pipeline::proposer> strategy;
  bool concurrent = false;     // llm and replay: each request in a worker of its own
  std::string kind;            // for the status
  std::int64_t proposals = 0;
  std::int64_t candidates = 0;
  std::int64_t failures = 0;

  caf::result<pipeline::proposal> propose(const pipeline::propose_request& request);
  messages::component_status status() const;
};

/// Throws when the spec's proposer kind is not in this build (the campaign validated it first).
messages::proposer_actor::behavior_type
proposer(messages::proposer_actor::stateful_pointer<proposer_state> self, proposer_config config);

} // namespace warpforge::actors
