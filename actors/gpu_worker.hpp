#pragma once
// gpu_worker: the only path to one GPU. It holds the GPU's advisory lock for its whole life,
// keeps one warpforge-runner pinned to the GPU (CUDA_VISIBLE_DEVICES = its UUID) through a
// runner_keeper, and answers race_order with a race_reply (every kernel checked, then timed in
// interleaved rounds) and metrics_order with a metric_set, one request at a time, in arrival
// order. Spawned detached: the runner calls block.
//
// Profiling: gpu/profiling's policy (CUPTI in this worker's runner, ncu for what it lacks or when
// counters are restricted), in passes apart from timing.
//
// Programs (calibrate): program_order runs a whole benchmark program N times (gpu::run_program,
// pinned to the GPU, a watchdog per trial) and counter_order reads its validation counters with
// two ncu passes (calibrate/engine/counter_check.hpp), both under the lock the worker holds. A
// calibrate campaign's workers keep no runner (keep_runner = false): nothing of warpforge holds a
// CUDA context on the GPU while a benchmark measures it.
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
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::actors {

/// A reply deadline per kernel of a race that names none: generous, since it covers the checks on
/// every seed and the kernel's share of the timing rounds.
inline constexpr std::chrono::seconds default_request_watchdog{120};
/// The reply deadline of one profile: every replay pass of the launch (a full schema takes
/// dozens), plus the ncu fallback's own start-up when it runs.
inline constexpr std::chrono::seconds default_profile_watchdog{300};

struct gpu_worker_config {
  gpu::device_info device;         // the GPU: stamped on every reply
  runner_keeper_options keeper;    // executable and restart policy (visible_devices is set here)
  bool keep_runner = true;         // false: programs only (calibrate); a race is answered out of service
  std::string lock_holder;         // how a refused process sees us ("warpforge bench x.toml")
  gpu::lock_policy lock = gpu::lock_policy::wait;
  std::chrono::milliseconds lock_timeout{std::chrono::minutes{10}};
  std::filesystem::path lock_dir = gpu::default_lock_dir();
  std::chrono::milliseconds default_watchdog = default_request_watchdog;
  std::chrono::milliseconds profile_watchdog = default_profile_watchdog;
  std::optional<std::filesystem::path> ncu; // the ncu fallback: nullopt = look on PATH, then in
                                            // $CUDA_HOME/bin (or /usr/local/cuda/bin); an empty
                                            // path = no fallback
  std::filesystem::path ncu_work_dir;       // where the fallback writes request.json and ncu.csv;
                                            // empty: <tmp>/warpforge-ncu-<pid>-gpu<ordinal>,
                                            // removed when the worker stops
};

/// The registry name of the worker of GPU `ordinal` ("gpu.0").
std::string gpu_worker_name(int ordinal);

/// A race every kernel of which got the runner error's outcome (the runner could not answer).
gpu::race_result race_failed(const gpu::race_request& request, const gpu::runner_error& error);

struct gpu_worker_state {
  static inline const char* name = "gpu_worker";

  std::optional<gpu_worker_config> config;
  std::optional<gpu::gpu_lock> lock;
  std::optional<runner_keeper> keeper;
  std::string failure;          // why the worker cannot measure (lock refused, runner gave up)
  std::int64_t races = 0;
  std::int64_t kernels = 0;
  std::int64_t timeouts = 0;
  std::int64_t profiles = 0;
  std::int64_t programs = 0;

  /// Every kernel of the race checked and timed (or why not).
  messages::race_reply race(const messages::race_order& order);
  /// Counters of one launch: CUPTI in the runner, ncu adding what it left out or standing in.
  gpu::metric_set profile(const messages::metrics_order& order);
  /// Counters of several launches: their CUPTI attempts in one batch of the runner's.
  messages::metrics_batch_reply profile(const messages::metrics_batch_order& batch);
  /// A whole program's trials on this GPU (or why it did not run).
  messages::program_reply program(const messages::program_order& order);
  /// A calibrate benchmark's counters through ncu on this GPU: the verdict.
  messages::counter_reply counters(const messages::counter_order& order);
  messages::component_status status() const;
};

messages::gpu_worker_actor::behavior_type
gpu_worker(messages::gpu_worker_actor::stateful_pointer<gpu_worker_state> self,
           gpu_worker_config config);

} // namespace warpforge::actors
