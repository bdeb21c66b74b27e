#pragma once
// supervisor: starts the other actors, watches them, restarts a crashed one after an exponential
// back-off, and fails the campaign cleanly when one crashes too often (policy from
// config::supervision_policy). Every restart is an event.

#include "messages/atoms.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::messages {

/// The supervisor's answer to "how is everyone?".
struct supervision_report {
  std::vector<component_status> children;
  std::uint32_t restarts = 0;  // since the supervisor started
  bool gave_up = false;        // a child exceeded its crash budget; the campaign failed
  std::string reason;          // why it gave up
  friend bool operator==(const supervision_report&, const supervision_report&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervision_report& x) {
  return f(caf::meta::type_name("supervision_report"), x.children, x.restarts, x.gave_up,
           x.reason);
}

/// Sent by the supervisor to whoever started it when it gives up on a child.
struct supervision_failed {
  std::string child;   // the actor that crashed too often
  std::uint32_t crashes = 0;
  std::string reason;  // last crash reason
  friend bool operator==(const supervision_failed&, const supervision_failed&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervision_failed& x) {
  return f(caf::meta::type_name("supervision_failed"), x.child, x.crashes, x.reason);
}

using supervisor_actor = caf::typed_actor<
  caf::replies_to<status_atom>::with<supervision_report>, // every child's status
  caf::replies_to<stop_atom>::with<bool>,                 // drain and stop all children
  caf::reacts_to<restart_atom, std::string>,              // internal: a back-off elapsed
  caf::reacts_to<stop_atom, std::string>>;                // internal: a child's stop grace elapsed

} // namespace warpforge::messages
