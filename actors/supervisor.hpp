#pragma once
// supervisor: starts the other actors, monitors them, restarts a crashed one after an
// exponential back-off, and gives up (failing the campaign cleanly, reason recorded) when one
// crashes more than `max_restarts` times within `window_s`. The policy is data
// (config::supervision_policy); the arithmetic lives in crash_budget, tested without actors.

#include "config/supervision_policy.hpp"
#include "messages/supervisor.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace warpforge::actors {

using clock = std::chrono::steady_clock;

/// How long a child may take to drain and quit after stop_atom before it is killed.
inline constexpr std::chrono::milliseconds default_stop_grace{10'000};

/// A child the supervisor owns: its name (also its registry key, at most 10 characters) and how
/// to spawn it, again after each crash. The child must handle messages::stop_atom by quitting
/// (after what is queued before it); one still running `stop_grace` later is killed.
struct child_spec {
  std::string name;
  std::function<caf::actor(caf::actor_system&)> spawn;
};

/// The verdict on one crash.
struct restart_decision {
  bool give_up = false;               // more than max_restarts crashes in the window
  std::chrono::milliseconds delay{0}; // wait this long before respawning
  std::uint32_t crashes_in_window = 0;
};

/// Crash history per child, judged against the policy.
class crash_budget {
public:
  explicit crash_budget(config::supervision_policy policy) : policy_(policy) {}

  /// Records a crash of `child` at `now` and says whether and when to restart it: the n-th crash
  /// inside the window waits config::backoff_delay(policy, n - 1); crashes older than the window
  /// are forgotten.
  restart_decision on_crash(const std::string& child, clock::time_point now);

  const config::supervision_policy& policy() const { return policy_; }

private:
  config::supervision_policy policy_;
  std::map<std::string, std::deque<clock::time_point>> crashes_;
};

struct supervisor_state {
  static inline const char* name = "supervisor";

  struct child {
    child_spec spec;
    caf::actor handle;
    messages::component_state state = messages::component_state::starting;
    std::uint32_t restarts = 0;
    std::string last_reason; // why it last went down
  };

  std::vector<child> children;
  // The children's current handles, shared with the exit functor that outlives this state.
  std::shared_ptr<std::vector<caf::actor>> live_handles = std::make_shared<std::vector<caf::actor>>();
  crash_budget budget{config::supervision_policy{}};
  caf::actor owner;            // told with supervision_failed when the supervisor gives up
  std::uint32_t restarts = 0;
  std::chrono::milliseconds stop_grace = default_stop_grace;
  std::vector<caf::typed_response_promise<bool>> stop_promises; // delivered once every child is down
  bool stopping = false;
  bool gave_up = false;
  std::string give_up_reason;

  child* find(const caf::actor_addr& who);
  child* find(const std::string& child_name);
  messages::supervision_report report() const;
};

/// Spawns `children` in order (each monitored and registered under its name) and supervises
/// them. `owner` (may be invalid) receives a supervision_failed when the supervisor gives up.
messages::supervisor_actor::behavior_type
supervisor(messages::supervisor_actor::stateful_pointer<supervisor_state> self,
           config::supervision_policy policy, std::vector<child_spec> children, caf::actor owner,
           std::chrono::milliseconds stop_grace);

} // namespace warpforge::actors
