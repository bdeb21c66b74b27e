#pragma once
// gpu_worker: the only path to one GPU. It holds the GPU's advisory lock for its whole life,
// keeps one warpforge-runner pinned to the GPU (CUDA_VISIBLE_DEVICES = its UUID) through a
// runner_keeper, and answers run_request with a measurement and profile_request with a
// metric_set, one request at a time, in arrival order. Spawned detached: the runner calls block.
//
// Profiling (docs/measurement.md, "Metrics"): the request's metric-schema keys become Nsight
// names (diagnosis/metric_schema.hpp; a derived key asks for its measured inputs; no keys: every
// measured key of the schema), the runner's CUPTI range profiler collects them, and when it
// cannot (counters_unavailable, not_supported, failed, the runner could not answer) the worker
// asks Nsight Compute instead (gpu::profile_with_ncu, only when ncu is found; clocks are never
// locked). Not when the candidate itself faulted or hung under the profiler: ncu would see the
// same. When CUPTI answers but leaves metrics out (the range profiler has no SASS-patching
// smsp__sass_* metrics and no launch__* attributes), ncu is asked for just those, and the source
// stays cupti with the note saying how many ncu supplied. Values come back in schema units
// (diagnosis::map_base_units); the note says why any requested metric has no value.
//
// Nothing a candidate does stops the worker: a hung kernel is a `timeout` (the runner is killed
// and a fresh one started), a lost context is a `runtime_error` (likewise), and a runner that
// keeps dying is restarted with back-off until the crash budget is spent; then the worker
// answers `not_run` with the reason and reports itself failed. Every runner start, restart and
// give-up is an event on the feed.

#include "actors/runner_keeper.hpp"
#include "diagnosis/metric_schema.hpp"
#include "gpu/runner/gpu_lock.hpp"
#include "gpu/runner/profile_request.hpp"
#include "messages/gpu_worker.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::actors {

/// A reply deadline for a request that names none: generous, since one request covers the
/// correctness runs on every seed and the whole timing loop.
inline constexpr std::chrono::seconds default_request_watchdog{120};
/// The reply deadline of one profile request: every replay pass of the launch (a full schema
/// takes dozens), plus the ncu fallback's own start-up when it runs.
inline constexpr std::chrono::seconds default_profile_watchdog{300};

struct gpu_worker_config {
  messages::device_summary device; // ordinal, name, arch...: stamped on every measurement
  std::string uuid;                // the GPU's UUID: runner pinning and lock key
  runner_keeper_options keeper;    // executable and restart policy (visible_devices is set here)
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

/// The measurement for `request` (a race of one kernel) from what the runner said (or why it
/// could not): kernels[0]'s verdict.
messages::measurement
measurement_from(const messages::run_request& request, const messages::device_summary& device,
                 vocabulary::timing_mode mode,
                 const expected<gpu::race_result, gpu::runner_error>& result);

/// The Nsight names a profile request must collect for metric-schema `keys`.
struct nsight_selection {
  std::vector<std::string> names;        // to collect, in schema order, no duplicates
  std::vector<std::string> unknown_keys; // keys the schema does not know, in the order asked
};

/// `keys` as Nsight names: a measured key gives its own name, a derived key the names of the
/// measured metrics its formula reads (transitively); empty `keys`: every measured metric.
nsight_selection nsight_names_for(const std::vector<std::string>& keys,
                                  const diagnosis::metric_schema& schema);

/// The metric_set from what a metric source answered: `result`'s Nsight values (base units)
/// mapped to schema keys, restricted to `selection.names`. `note` starts the set's note; every
/// requested metric without a value is then named with the reason (the source's `missing`, a
/// unit it could not convert, or "not returned"), and so is every unknown key.
messages::metric_set metric_set_from(const messages::profile_request& request,
                                     const messages::device_summary& device,
                                     messages::metric_source source,
                                     const gpu::profile_result& result,
                                     const nsight_selection& selection,
                                     const diagnosis::metric_schema& schema, std::string note);

/// The ncu executable: `configured` when set (empty: none), else the first `ncu` on PATH or in
/// the CUDA home's bin/.
std::optional<std::filesystem::path> locate_ncu(const std::optional<std::filesystem::path>& configured);

struct gpu_worker_state {
  static inline const char* name = "gpu_worker";

  std::optional<gpu_worker_config> config;
  std::optional<gpu::gpu_lock> lock;
  std::optional<runner_keeper> keeper;
  std::string failure;          // why the worker cannot measure (lock refused, runner gave up)
  std::int64_t requests = 0;
  std::int64_t timeouts = 0;
  std::int64_t profiles = 0;
  std::int64_t ncu_fallbacks = 0;

  /// Counters of one launch of `request`'s candidate: CUPTI in the runner (ncu adding what it
  /// left out), else ncu alone.
  messages::metric_set profile(const messages::profile_request& request);
  /// `asked` through the ncu fallback around a one-shot runner; nullopt when ncu is not here.
  std::optional<gpu::profile_result> ask_ncu(const gpu::profile_request& asked);
  messages::component_status status() const;
};

messages::gpu_worker_actor::behavior_type
gpu_worker(messages::gpu_worker_actor::stateful_pointer<gpu_worker_state> self,
           gpu_worker_config config);

} // namespace warpforge::actors
