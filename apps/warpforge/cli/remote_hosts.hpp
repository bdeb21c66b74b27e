#pragma once
// The coordinator's side of `warpforge host` (docs/hosts.md) for run and resume: its TLS set-up,
// the ledger of what it compiled (kernels travel to hosts as source and options), and the hub that
// connects to the listed hosts (or lets hosts call back through the door it publishes) and
// registers each host's GPU as "gpu.<ordinal>" for the engine's one queue.
//
//   auto hosts = remote_hosts::prepare(request);      // error: a bad address or credential
//   hosts->configure(pipeline);                        // before the runtime starts
//   auto gpus = hosts->start(runtime.system(), run_dir); // (submits,) waits for the hosts; their GPUs
//   ... run the campaign on `gpus` ...
//   hosts->stop();

#include "actors/hosts/network.hpp"
#include "actors/runtime.hpp"
#include "config/hosts_spec.hpp"
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
  std::optional<config::slurm_spec> slurm; // [hosts.slurm]: submit one host per node, which call
                                      // back (to `listen`); the credential is made for the run
  std::string campaign;               // the campaign's name (a made credential's subject)
};

class remote_hosts {
public:
  static expected<remote_hosts, std::string> prepare(const hosts_request& request);

  /// The runtime's network (TLS with the campaign's credential) and compiles that are remembered.
  void configure(actors::pipeline_options& pipeline) const;
  /// Starts the hub (and the door); with Slurm, puts the credential in <run_dir>/credential and
  /// submits the hosts (pipeline/hosts/); waits for the hosts: the GPUs they offer, coordinator
  /// ordinals from 0. The error: no host came within the wait, the door cannot listen, or the
  /// submission failed.
  expected<std::vector<gpu::device_info>, std::string> start(caf::actor_system& system,
                                                             const std::filesystem::path& run_dir);
  /// Stops the hub and the remote GPUs' actors; cancels the Slurm job this run submitted (hosts
  /// started otherwise keep running for the next campaign).
  void stop();

private:
  hosts_request request_;
  // A credential made for this run (Slurm): removed when the last copy of this object goes, after
  // the runtime (CAF reads the files at every new TLS connection, until the system is gone).
  std::shared_ptr<const std::filesystem::path> made_credential_;
  std::filesystem::path submitted_for_;   // the run directory whose Slurm job this process submitted
  pipeline::credential_files credential_;
  std::vector<actors::hosts::endpoint> addresses_;
  std::optional<actors::hosts::endpoint> door_at_;
  std::shared_ptr<pipeline::kernel_ledger> ledger_ = std::make_shared<pipeline::kernel_ledger>();
  messages::host_hub_actor hub_;
  messages::host_door_actor door_;
};

} // namespace warpforge::cli
