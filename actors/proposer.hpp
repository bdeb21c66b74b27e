#pragma once
// proposer: a thin shell over one pipeline::proposer (the campaign's kind: the built-in tuner
// today). Proposers are pure functions of the request and their configuration, so a restarted
// proposer answers as the one before it would have.

#include "config/campaign_spec.hpp"
#include "messages/proposer.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <memory>

namespace warpforge::actors {

inline constexpr std::string_view proposer_name = "proposer";

struct proposer_state {
  static inline const char* name = "proposer";

  std::unique_ptr<pipeline::proposer> strategy;
  std::string kind;            // for the status
  std::int64_t proposals = 0;
  std::int64_t candidates = 0;
  std::int64_t failures = 0;

  caf::result<pipeline::proposal> propose(const pipeline::propose_request& request);
  messages::component_status status() const;
};

/// Throws when the spec's proposer kind is not in this build (the campaign validated it first).
messages::proposer_actor::behavior_type
proposer(messages::proposer_actor::stateful_pointer<proposer_state> self, config::proposer_spec spec);

} // namespace warpforge::actors
