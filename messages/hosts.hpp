#pragma once
// GPU hosts (docs/hosts.md): a `warpforge host` process offers its GPUs to a coordinator through
// one gateway actor (host_actor), reached over CAF's network layer with TLS. The coordinator
// sends it the same race_order and metrics_batch_order a local gpu_worker gets, wrapped with the
// host-local GPU and the source and options of every CUBIN they name (the host compiles them
// again with its own NVRTC); the answers are the typed replies of today. A host that calls back
// (Slurm) joins through the coordinator's door (host_door_actor).

#include "messages/atoms.hpp"
#include "messages/compiler.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/status.hpp"
#include "pipeline/kernel_ledger.hpp"

#include <caf/actor.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>
#include <vector>

namespace warpforge::pipeline {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kernel_build& x) {
  return f(caf::meta::type_name("kernel_build"), x.cubin_path, x.request, x.cubin_sha256);
}

} // namespace warpforge::pipeline

namespace warpforge::messages {

using hello_atom = caf::atom_constant<caf::atom("hello")>;         // host: which GPUs do you offer?
using heartbeat_atom = caf::atom_constant<caf::atom("heartbeat")>; // host: are you there? (answered at once)
using host_join_atom = caf::atom_constant<caf::atom("host_join")>; // door: a host calling back

/// What a host offers: its name (for messages and events) and its GPUs, host-local ordinals.
struct host_offer {
  std::string host;                       // "<hostname>:<pid>"
  std::vector<gpu::device_info> devices;  // one per gpu_worker it runs
  friend bool operator==(const host_offer&, const host_offer&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, host_offer& x) {
  return f(caf::meta::type_name("host_offer"), x.host, x.devices);
}

/// A race for the host's GPU `gpu` (its own ordinal); `builds` make every CUBIN `order` names.
struct remote_race {
  race_order order;
  int gpu = 0;
  std::vector<pipeline::kernel_build> builds;
  friend bool operator==(const remote_race&, const remote_race&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, remote_race& x) {
  return f(caf::meta::type_name("remote_race"), x.order, x.gpu, x.builds);
}

/// Profiles on the host's GPU `gpu` (one, or several read in one batch there: metrics_batch_order),
/// with the builds of all their kernels.
struct remote_profile_batch {
  metrics_batch_order order;
  int gpu = 0;
  std::vector<pipeline::kernel_build> builds;
  friend bool operator==(const remote_profile_batch&, const remote_profile_batch&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, remote_profile_batch& x) {
  return f(caf::meta::type_name("remote_profile_batch"), x.order, x.gpu, x.builds);
}

/// To the scheduler: a GPU joined the running campaign (a new host's, or one whose host came back,
/// under the ordinal it had): its placement takes it (again).
struct gpu_joined {
  gpu::device_info device; // ordinal: the coordinator's
  friend bool operator==(const gpu_joined&, const gpu_joined&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gpu_joined& x) {
  return f(caf::meta::type_name("gpu_joined"), x.device);
}

/// The gateway of one `warpforge host`: the only actor it publishes (or hands the coordinator).
using host_actor = caf::typed_actor<
  caf::replies_to<hello_atom>::with<host_offer>,             // the GPUs it offers
  caf::replies_to<remote_race>::with<race_reply>,            // compile here, then race on that GPU
  caf::replies_to<remote_profile_batch>::with<metrics_batch_reply>, // compile here, then profile
  caf::replies_to<heartbeat_atom>::with<heartbeat_atom>,     // liveness, answered at once
  caf::reacts_to<stop_atom>,                                 // its supervisor stops it
  status_handler>;

/// The coordinator's hub of hosts (actors/hosts/host_hub.hpp): admits a host's GPUs, and tells
/// the command how many it has.
using host_hub_actor = caf::typed_actor<
  caf::replies_to<host_join_atom, caf::actor>::with<bool>,          // a host's gateway, reached or calling back
  caf::replies_to<wait_atom, std::uint32_t, double>::with<host_offer>, // wait for n hosts, at most s seconds:
                                                                    // every GPU joined so far (coordinator ordinals)
  caf::reacts_to<tick_atom>,                                        // internal: a wait's deadline
  caf::reacts_to<stop_atom>,
  status_handler>;

/// The coordinator's door for hosts that call back (`warpforge host --coordinator`): the host
/// hands over its gateway (an untyped handle: the door checks its interface by asking hello).
using host_door_actor = caf::typed_actor<caf::replies_to<host_join_atom, caf::actor>::with<bool>>;

} // namespace warpforge::messages
