#pragma once
// gpu_worker (one per GPU): run_request → measurement, and profiling → metric_set. It owns
// one warpforge-runner child process pinned to its GPU and is the only path to that GPU.

#include "messages/atoms.hpp"
#include "messages/ids.hpp"
#include "messages/metrics.hpp"
#include "messages/outcome.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::messages {

/// One candidate to check and time on the worker's GPU. The layout (CUBINs, entries, launch
/// geometry, arguments, seeds, timing policy, warm or cold) travels as the runner's own
/// run_race body (gpu::race_request of one kernel, docs/runner-protocol.md), so it is defined once.
struct run_request {
  branch_ref ref;
  candidate_kind kind = candidate_kind::branch;
  std::string request_json; // gpu::encode_body(race_request)
  double watchdog_s = 0;    // reply deadline; 0: the worker's default
  friend bool operator==(const run_request&, const run_request&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_request& x) {
  return f(caf::meta::type_name("run_request"), x.ref, x.kind, x.request_json, x.watchdog_s);
}

/// Timing statistics of one candidate on one GPU. Seconds throughout; cv is a ratio.
struct timing_stats {
  double median_s = 0;
  double mean_s = 0;
  double stddev_s = 0;
  double cv = 0;          // stddev / mean
  double ci95_low_s = 0;
  double ci95_high_s = 0;
  double min_s = 0;
  std::uint32_t samples = 0;
  double sm_clock_mhz = 0; // SM clock seen while timing
  double loop_wall_s = 0;  // wall seconds of the timing loop (warm-up excluded; flushes, launch
                           // and sync overhead included): against samples * mean, the overhead
  friend bool operator==(const timing_stats&, const timing_stats&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, timing_stats& x) {
  return f(caf::meta::type_name("timing_stats"), x.median_s, x.mean_s, x.stddev_s, x.cv,
           x.ci95_low_s, x.ci95_high_s, x.min_s, x.samples, x.sm_clock_mhz, x.loop_wall_s);
}

/// How far the candidate's output is from the reference.
struct correctness_report {
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::int64_t first_bad_index = -1; // -1: none
  std::uint32_t seeds_checked = 0;
  bool inputs_unchanged = true;
  friend bool operator==(const correctness_report&, const correctness_report&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, correctness_report& x) {
  return f(caf::meta::type_name("correctness_report"), x.max_abs_error, x.max_rel_error,
           x.first_bad_index, x.seeds_checked, x.inputs_unchanged);
}

struct measurement {
  branch_ref ref;
  branch_outcome outcome = branch_outcome::not_run;
  device_summary device;
  correctness_report correctness;
  timing_stats timing;
  timing_mode mode = timing_mode::warm;
  std::string error_text; // CUDA error text for runtime_error, watchdog note for timeout,
                          // the mismatch for incorrect, why for not_run / not_supported
  double wall_s = 0;      // seconds the worker spent on the request (runner start included)
  friend bool operator==(const measurement&, const measurement&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, measurement& x) {
  return f(caf::meta::type_name("measurement"), x.ref, x.outcome, x.device, x.correctness,
           x.timing, x.mode, x.error_text, x.wall_s);
}

/// Hardware counters of one candidate, in passes apart from timing. The launch travels as in
/// run_request (the runner's candidate body); the metrics are metric-schema keys.
struct profile_request {
  branch_ref ref;
  std::string request_json;             // gpu::encode_body(race_request)
  std::vector<std::string> metric_keys; // metric-schema keys; empty: the default set
  friend bool operator==(const profile_request&, const profile_request&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_request& x) {
  return f(caf::meta::type_name("profile_request"), x.ref, x.request_json, x.metric_keys);
}

using gpu_worker_actor = caf::typed_actor<
  caf::replies_to<run_request>::with<measurement>,   // check correctness, then time
  caf::replies_to<profile_request>::with<metric_set>, // counters, in passes apart from timing
  caf::replies_to<query_atom>::with<device_summary>,  // which GPU this worker owns
  caf::reacts_to<restart_atom>,                       // internal: bring a dead runner back
  caf::reacts_to<stop_atom>,                          // stop the runner, release the GPU, quit
  status_handler>;

} // namespace warpforge::messages

