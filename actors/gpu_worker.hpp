#pragma once
// gpu_worker: the only path to one GPU. It holds the GPU's advisory lock for its whole life,
// keeps one warpforge-runner pinned to the GPU (CUDA_VISIBLE_DEVICES = its UUID) through a
// runner_keeper, and answers run_request with a measurement, one request at a time, in arrival
// order. Spawned detached: the runner calls block.
//
// Nothing a candidate does stops the worker: a hung kernel is a `timeout` (the runner is killed
// and a fresh one started), a lost context is a `runtime_error` (likewise), and a runner that
// keeps dying is restarted with back-off until the crash budget is spent; then the worker
// answers `not_run` with the reason and reports itself failed. Every runner start, restart and
// give-up is an event on the feed.

#include "actors/runner_keeper.hpp"
#include "gpu/runner/gpu_lock.hpp"
#include "messages/gpu_worker.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace warpforge::actors {

/// A reply deadline for a request that names none: generous, since one request covers the
/// correctness runs on every seed and the whole timing loop.
inline constexpr std::chrono::seconds default_request_watchdog{120};

struct gpu_worker_config {
  messages::device_summary device; // ordinal, name, arch...: stamped on every measurement
  std::string uuid;                // the GPU's UUID: runner pinning and lock key
  runner_keeper_options keeper;    // executable and restart policy (visible_devices is set here)
  std::string lock_holder;         // how a refused process sees us ("warpforge bench x.toml")
  gpu::lock_policy lock = gpu::lock_policy::wait;
  std::chrono::milliseconds lock_timeout{std::chrono::minutes{10}};
  std::filesystem::path lock_dir = gpu::default_lock_dir();
  std::chrono::milliseconds default_watchdog = default_request_watchdog;
};

/// The registry name of the worker of GPU `ordinal` ("gpu.0").
std::string gpu_worker_name(int ordinal);

/// The measurement for `request` from what the runner said (or why it could not).
messages::measurement
measurement_from(const messages::run_request& request, const messages::device_summary& device,
                 gpu::timing_mode mode,
                 const expected<gpu::candidate_result, gpu::runner_error>& result);

struct gpu_worker_state {
  static inline const char* name = "gpu_worker";

  std::optional<gpu_worker_config> config;
  std::optional<gpu::gpu_lock> lock;
  std::optional<runner_keeper> keeper;
  std::string failure;          // why the worker cannot measure (lock refused, runner gave up)
  std::int64_t requests = 0;
  std::int64_t timeouts = 0;

  messages::component_status status() const;
};

messages::gpu_worker_actor::behavior_type
gpu_worker(messages::gpu_worker_actor::stateful_pointer<gpu_worker_state> self,
           gpu_worker_config config);

} // namespace warpforge::actors
