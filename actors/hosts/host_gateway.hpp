#pragma once
// host_gateway: the one actor a `warpforge host` offers to its coordinator (messages/hosts.hpp,
// host_actor). It answers hello with the GPUs of its gpu_workers and heartbeat at once; a
// remote_race (or remote_profile_batch) is compiled here from the source and options it carries (this
// host's NVRTC through its content cache, pipeline/kernel_ledger.hpp rebuild_on_host), pointed at
// the CUBINs made here and handed to the local gpu_worker of that GPU, whose typed reply goes back
// as it is. Each order runs in a detached helper of its own (compiles block), so orders for
// different GPUs overlap and the gateway stays free for heartbeats.
//
// What a connection can make this host do is exactly this: compile CUDA source and run the
// kernels on its GPUs (code execution by design; docs/hosts.md, "Threat model").

#include "messages/hosts.hpp"
#include "pipeline/kernel_ledger.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <filesystem>
#include <string_view>

namespace warpforge::actors::hosts {

inline constexpr std::string_view host_gateway_name = "host";

struct host_gateway_config {
  messages::host_offer offer;               // its name and the GPUs of its workers (local ordinals)
  pipeline::host_compile_function compile;  // this host's NVRTC through its content cache
  std::filesystem::path kernel_dir;         // where the CUBINs made here go (<work-dir>/kernels)
};

struct host_gateway_state {
  static inline const char* name = "host_gateway";
  host_gateway_config config;
  std::int64_t races = 0;
  std::int64_t profiles = 0;
  std::int64_t refused = 0; // orders for a GPU this host does not offer, or whose kernels did not compile
  messages::component_status status() const;
};

messages::host_actor::behavior_type
host_gateway(messages::host_actor::stateful_pointer<host_gateway_state> self, host_gateway_config config);

} // namespace warpforge::actors::hosts
