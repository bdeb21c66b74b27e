#pragma once
// host_hub: the coordinator's side of its hosts (docs/hosts.md). Hosts reach it two ways: it
// connects to each listed address (a connector per address, which connects again whenever the
// host is lost), or a host calls back through the door the command publishes. Either way the
// host's gateway is asked hello, and each GPU it offers gets a remote_gpu actor registered under
// "gpu.<ordinal>" — an ordinal of the coordinator's, the same again when the same host (its name
// and the GPU's UUID) comes back — so the engine places races on it like on a local GPU. A GPU
// joining after the campaign started is announced to the scheduler (messages::gpu_joined).

#include "actors/hosts/network.hpp"
#include "messages/hosts.hpp"
#include "pipeline/kernel_ledger.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace warpforge::actors::hosts {

struct host_hub_config {
  std::vector<endpoint> addresses;                       // listed hosts to connect to
  int first_ordinal = 0;                                 // the first remote GPU's coordinator ordinal
  std::shared_ptr<const pipeline::kernel_ledger> ledger; // the coordinator's compiles
};

struct host_hub_state {
  static inline const char* name = "host_hub";
  struct waiter {
    caf::typed_response_promise<messages::host_offer> promise;
    std::uint32_t hosts = 0;
    std::chrono::steady_clock::time_point deadline;
  };
  host_hub_config config;
  std::map<std::string, int> ordinal_of;      // "<host>/<uuid>" -> coordinator ordinal
  std::map<int, gpu::device_info> live;        // coordinator ordinal -> its GPU, while its host is there
  std::map<int, caf::actor_addr> gateway_of;   // coordinator ordinal -> its host's gateway
  std::map<int, caf::actor> workers;           // coordinator ordinal -> its remote_gpu (for the campaign's life)
  std::vector<waiter> waiting;
  bool announced = false;                      // a wait was answered: later GPUs go to the scheduler
  std::int64_t joins = 0;
  std::int64_t losses = 0;

  messages::host_offer offer() const;
  std::size_t hosts() const; // hosts whose GPUs are live
  messages::component_status status() const;
};

messages::host_hub_actor::behavior_type
host_hub(messages::host_hub_actor::stateful_pointer<host_hub_state> self, host_hub_config config);

/// The door a calling-back host knocks at: forwards its gateway to `hub`, nothing else (it is the
/// only actor the coordinator publishes).
messages::host_door_actor make_door(caf::actor_system& system, messages::host_hub_actor hub);

} // namespace warpforge::actors::hosts
