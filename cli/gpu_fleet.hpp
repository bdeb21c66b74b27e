#pragma once
// The GPUs a command measures on: which the host has (asked of one unpinned runner), which the
// user chose (--gpus), and one gpu_worker actor per chosen GPU, spawned into the command's actor
// system. Shared by bench and diagnose; the optimize pipeline uses the same workers.
//
//   auto fleet = discover_gpus(options.gpus);        // error: --gpus names a GPU not here
//   if (fleet->usable()) workers = spawn_workers(system, *fleet, "warpforge bench x.toml", ...);
//   ... request(workers[i].handle, ...) ...
//   stop_workers(system, workers);

#include "actors/gpu_worker.hpp"
#include "expected/expected.hpp"
#include "diagnosis/gpu_specs.hpp"
#include "gpu/device_report.hpp"

#include <caf/actor_system.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::cli {

struct gpu_fleet {
  std::filesystem::path runner;        // the runner executable (empty when none was found)
  std::optional<gpu::host_report> host; // what the runner said (none: it did not answer)
  std::vector<int> chosen;             // ordinals to use, in --gpus order
  std::string why_none;                // when nothing is usable: the runner's or the host's reason

  bool usable() const { return !chosen.empty(); }
  const gpu::device_info& device(int ordinal) const;
};

/// Asks the host's GPUs and picks `gpus_option` ("all" or "0,2") among them. No GPU is not an
/// error (usable() is false, why_none says why); a --gpus naming a GPU this host lacks is.
expected<gpu_fleet, std::string> discover_gpus(const std::string& gpus_option);

/// Which ordinals `text` names among `device_count`: "all", or a comma list.
expected<std::vector<int>, std::string> choose_gpus(const std::string& text, int device_count);

/// What the runner reported about a device, as diagnosis reads it (0: not reported).
diagnosis::device_properties properties_of(const gpu::device_info& device);

/// The summary a measurement carries of a device.
messages::device_summary summary_of(const gpu::device_info& device);

struct fleet_options {
  std::string holder;                              // how a refused process sees us
  std::chrono::milliseconds lock_timeout{std::chrono::minutes{10}};
  std::chrono::milliseconds default_watchdog = actors::default_request_watchdog;
  config::supervision_policy restarts;
};

struct worker_handle {
  int ordinal = -1;
  messages::gpu_worker_actor handle;
};

/// One detached gpu_worker per chosen GPU, registered as "gpu.<ordinal>".
std::vector<worker_handle> spawn_workers(caf::actor_system& system, const gpu_fleet& fleet,
                                         const fleet_options& options);

/// Stops every worker (runner shut down, GPU lock released) and waits for them.
void stop_workers(caf::actor_system& system, std::vector<worker_handle>& workers);

} // namespace warpforge::cli
