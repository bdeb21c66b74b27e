#pragma once
// remote_gpu: a GPU of a `warpforge host`, as the coordinator's pipeline sees it: a gpu_worker
// (messages::gpu_worker_actor) registered under "gpu.<ordinal>", the coordinator's ordinal, so the
// engine's one queue places races on it as on a local GPU and the profiler profiles on it. Each
// race or profile goes to the host's gateway with the source and options of its CUBINs (from the
// coordinator's kernel_ledger); the reply comes back with this GPU's coordinator ordinal.
//
// Losing the host: CAF's down message for the gateway (its process died, its connection closed)
// or a heartbeat not answered within heartbeat_timeout. Then every race in flight is answered
// out_of_service (the engine puts it back in the queue for another GPU; nothing of it was
// recorded), and so is every later one, until the host hub points it at the gateway of the host
// that came back. Calibrate's program and counter orders run on local GPUs only.

#include "messages/hosts.hpp"
#include "pipeline/kernel_ledger.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace warpforge::actors::hosts {

/// A remote GPU: a gpu_worker that can also be pointed at its host's gateway again when the host
/// comes back (the hub sends host_join_atom with the new gateway). The same actor stays registered
/// under its name for the campaign's life: CAF's registry does not replace a name a live actor
/// holds, and a name left empty would make the scheduler wait instead of racing elsewhere.
using remote_gpu_actor = messages::gpu_worker_actor::extend<caf::reacts_to<messages::host_join_atom, caf::actor>>;

struct remote_gpu_config {
  messages::host_actor host;                     // the host's gateway
  std::string host_name;                         // its offer's name, for messages
  gpu::device_info device;                       // ordinal: the coordinator's
  int host_ordinal = 0;                          // the same GPU's ordinal on its host
  std::shared_ptr<const pipeline::kernel_ledger> ledger; // the coordinator's compiles
};

struct remote_gpu_state {
  static inline const char* name = "remote_gpu";
  remote_gpu_config config;
  std::string lost;                                          // why the host is lost; empty: it is not
  bool beating = false;                                      // a heartbeat is out or due
  std::uint64_t next_order = 0;
  std::map<std::uint64_t, std::function<void(const std::string&)>> in_flight; // answer it out of service
  std::int64_t races = 0;
  std::int64_t profiles = 0;
  std::int64_t given_back = 0; // races and profiles answered out of service: the host was lost

  /// Marks the host lost (once) and answers everything in flight out of service.
  void lose(const std::string& why);
  messages::race_reply out_of_service(const messages::race_order& order, const std::string& why) const;
  messages::component_status status() const;
};

remote_gpu_actor::behavior_type remote_gpu(remote_gpu_actor::stateful_pointer<remote_gpu_state> self,
                                           remote_gpu_config config);

} // namespace warpforge::actors::hosts
