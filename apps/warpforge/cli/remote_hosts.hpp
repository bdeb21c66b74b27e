#pragma once
// The coordinator's side of `warpforge host` (docs/hosts.md) for run and resume: its TLS set-up,
// the ledger of what it compiled (kernels travel to hosts as source and options), and the hub that
// connects to the listed hosts (or lets hosts call back through the door it publishes) and
// registers each host's GPU as "gpu.<ordinal>" for the engine's one queue.
//
//   auto hosts = remote_hosts::prepare(request);      // error: a bad address or credential
//   hosts->configure(pipeline);                        // before the runtime starts
//   auto gpus = hosts->start(runtime.system());        // waits for the hosts; their GPUs
//   ... run the campaign on `gpus` ...
//   hosts->stop(runtime.system());

#include "actors/hosts/network.hpp"
#include "actors/runtime.hpp"
#include "foundation/expected/expected.hpp"
#include "messages/hosts.hpp"
#include "pipeline/host_credential.hpp"
#include "pipeline/kernel_ledger.hpp"

#include <caf/actor_system.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::cli {

struct hosts_request {
  std::vector<std::string> addresses; // `warpforge host --listen` processes to connect to
  std::string listen;                 // [ADDR:]PORT where hosts call back (--coordinator); empty: none
  std::string credential;             // the campaign's credential folder
  double wait_s = 120;                // how long the campaign waits for its hosts before it starts
                                      // (with those that came; at least one is needed)
};

class remote_hosts {
public:
  static expected<remote_hosts, std::string> prepare(const hosts_request& request);

  /// The runtime's network (TLS with the campaign's credential) and compiles that are remembered.
  void configure(actors::pipeline_options& pipeline) const;
  /// Starts the hub (and the door), waits for the hosts: the GPUs they offer, coordinator ordinals
  /// from 0. The error: no host came within the wait, or the door cannot listen.
  expected<std::vector<gpu::device_info>, std::string> start(caf::actor_system& system);
  /// Stops the hub and the remote GPUs' actors (the hosts keep running for the next campaign).
  void stop();

private:
  hosts_request request_;
  pipeline::credential_files credential_;
  std::vector<actors::hosts::endpoint> addresses_;
  std::optional<actors::hosts::endpoint> door_at_;
  std::shared_ptr<pipeline::kernel_ledger> ledger_ = std::make_shared<pipeline::kernel_ledger>();
  messages::host_hub_actor hub_;
  messages::host_door_actor door_;
};

} // namespace warpforge::cli
