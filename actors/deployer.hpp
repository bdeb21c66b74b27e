#pragma once
// deployer: a thin shell over deploy/ (the state machine that writes a champion into the user's
// project, builds, verifies, times and rolls back). Each order gets a detached worker of its own,
// because a deploy blocks on the user's build and program for minutes; the worker plans the deploy
// from the run (deploy/plan_from_run.hpp), runs it, and as each step ends writes its row to the
// store and its event to the feed. This actor only dispatches and keeps the status.

#include "messages/deployer.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <cstdint>
#include <string_view>

namespace warpforge::actors {

inline constexpr std::string_view deployer_name = "deployer";

struct deployer_state {
  static inline const char* name = "deployer";

  std::int64_t deploys = 0;   // orders taken
  std::int64_t accepted = 0;  // ended with the champion in the project
  std::int64_t in_flight = 0;

  messages::component_status status() const;
};

messages::deployer_actor::behavior_type deployer(messages::deployer_actor::stateful_pointer<deployer_state> self);

} // namespace warpforge::actors
