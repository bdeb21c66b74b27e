#pragma once
// gpu_worker (one per GPU): race_order -> race_reply, metrics_order -> gpu::metric_set,
// program_order -> program_reply, counter_order -> counter_reply. It owns one warpforge-runner
// child process pinned to its GPU and is the only path to that GPU: optimize campaigns race
// kernels in the runner, calibrate campaigns run whole benchmark programs (and ncu around them)
// under the same lock. The race travels typed (gpu::race_request, docs/runner-protocol.md); it
// becomes JSON only inside the runner client, at the process boundary.

#include "config/campaign_spec.hpp"
#include "gpu/device_report.hpp"
#include "gpu/profiling/metric_collection.hpp"
#include "gpu/runner/program_run.hpp"
#include "gpu/runner/race_request.hpp"
#include "messages/atoms.hpp"
#include "messages/ids.hpp"
#include "messages/inspect_support.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// --- the runner's request and result, given inspects ---------------------------------------------

namespace warpforge::config {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, launch_geometry& x) {
  return f(caf::meta::type_name("launch_geometry"), x.grid[0], x.grid[1], x.grid[2], x.block[0],
           x.block[1], x.block[2], x.dynamic_smem_bytes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, init_spec& x) {
  return f(caf::meta::type_name("init_spec"), x.kind, x.low, x.high, x.mean, x.stddev, x.value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tolerance& x) {
  return f(caf::meta::type_name("tolerance"), x.rtol, x.atol);
}

} // namespace warpforge::config

namespace warpforge::gpu {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kernel_launch& x) {
  auto cubin = messages::path_field(x.cubin_path);
  return f(caf::meta::type_name("kernel_launch"), cubin, x.entry, x.launch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_buffer_arg& x) {
  return f(caf::meta::type_name("buffer_arg"), x.name, x.type, x.count, x.role, x.init, x.tol);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_scalar_arg& x) {
  auto value = messages::variant_field(x.value);
  return f(caf::meta::type_name("scalar_arg"), x.name, x.type, value);
}

/// A candidate_arg is a std::variant of the two kinds (found by ADL through its alternatives).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_arg& x) {
  auto value = messages::variant_field(x);
  return f(value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kernel_watchdog& x) {
  return f(caf::meta::type_name("kernel_watchdog"), x.reference_multiple, x.floor_s, x.reference_limit_s);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, timing_policy& x) {
  return f(caf::meta::type_name("timing_policy"), x.warmup_window, x.warmup_settle, x.warmup_min_launches,
           x.warmup_max_launches, x.warmup_max_time_s, x.batch_time_s, x.max_batch_samples, x.ci_target,
           x.min_rounds, x.min_samples, x.max_time_s, x.max_samples);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, race_request& x) {
  auto reference = messages::optional_field(x.reference);
  return f(caf::meta::type_name("race_request"), x.kernels, reference, x.args, x.seeds, x.timing,
           x.mode, x.watchdog, x.fresh);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, confidence_interval& x) {
  return f(caf::meta::type_name("confidence_interval"), x.low, x.high, x.level);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sample_stats& x) {
  return f(caf::meta::type_name("sample_stats"), x.count, x.median_s, x.mean_s, x.stddev_s, x.cv,
           x.min_s, x.max_s, x.median_ci, x.mean_ci, x.rse);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, compare_report& x) {
  auto first_bad = messages::optional_field(x.first_bad_index);
  return f(caf::meta::type_name("compare_report"), x.passed, x.elements, x.mismatches,
           x.max_abs_error, x.max_rel_error, first_bad, x.first_bad_got, x.first_bad_want,
           x.first_bad_got_bits, x.first_bad_want_bits, x.poisoned_elements);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, input_check& x) {
  auto first = messages::optional_field(x.first_difference);
  return f(caf::meta::type_name("input_check"), x.unchanged, first);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, config_median& x) {
  return f(caf::meta::type_name("config_median"), x.config, x.weight, x.median_s);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kernel_result& x) {
  auto seed = messages::optional_field(x.seed);
  auto compare = messages::optional_field(x.compare);
  auto input = messages::optional_field(x.input);
  return f(caf::meta::type_name("kernel_result"), x.outcome, x.detail, seed, x.arg, compare, input,
           x.stats, x.decision, x.rounds, x.round_spread_s, x.batch_samples, x.warmup_launches, x.warmup,
           x.kernel_s, x.load_s, x.check_s, x.warmup_s, x.timing_s, x.notes, x.config_medians);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, race_result& x) {
  auto ended_by = messages::optional_field(x.ended_by);
  return f(caf::meta::type_name("race_result"), x.kernels, x.reference_s, x.watchdog_s,
           x.sm_clock_hz_before, x.sm_clock_hz_after, x.inputs_s, x.reference_wall_s, x.setup_s,
           x.rounds_wall_s, x.wall_s, ended_by, x.runner_exits, x.notes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_info& x) {
  return f(caf::meta::type_name("device_info"), x.ordinal, x.name, x.uuid, x.pci_bus_id, x.sm_major,
           x.sm_minor, x.memory_bytes, x.sm_count, x.l2_bytes, x.shared_memory_per_block_optin_bytes,
           x.registers_per_sm, x.max_threads_per_sm, x.sm_clock_khz, x.memory_clock_khz,
           x.memory_bus_width_bits, x.ecc_enabled, x.counters, x.counter_reason, x.notes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metric_value& x) {
  return f(caf::meta::type_name("metric_value"), x.key, x.value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metric_set& x) {
  auto source = messages::optional_field(x.source);
  return f(caf::meta::type_name("metric_set"), source, x.values, x.note, x.service, x.why_out_of_service);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, child_exit& x) {
  auto code = messages::optional_field(x.exit_code);
  auto signal = messages::optional_field(x.signal);
  return f(caf::meta::type_name("child_exit"), code, signal);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, result_value& x) {
  return f(caf::meta::type_name("result_value"), x.name, x.value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, program_trial& x) {
  return f(caf::meta::type_name("program_trial"), x.outcome, x.exit, x.wall_s, x.results, x.detail, x.output_tail);
}

} // namespace warpforge::gpu

namespace warpforge::messages {

/// One race on the worker's GPU.
struct race_order {
  pipeline::branch_ref ref;   // the job and iteration it belongs to (branch -1)
  gpu::race_request request;  // the kernels, the problem's arguments, seeds, timing
  double deadline_s = 0;      // reply deadline per kernel, seconds; 0: the worker's default
  friend bool operator==(const race_order&, const race_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, race_order& x) {
  return f(caf::meta::type_name("race_order"), x.ref, x.request, x.deadline_s);
}

using gpu::worker_service; // gpu/runner/worker_service.hpp: a race's answer says it as a profile's does

struct race_reply {
  gpu::device_info device;  // the GPU it ran on
  gpu::race_result result;  // one kernel_result per request kernel, always complete
  double wall_s = 0;        // seconds the worker spent on it (a runner start included)
  worker_service service = worker_service::in_service; // out_of_service: every kernel not_run
  std::string why_out_of_service; // the worker's reason, when out of service
  friend bool operator==(const race_reply&, const race_reply&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, race_reply& x) {
  return f(caf::meta::type_name("race_reply"), x.device, x.result, x.wall_s, x.service, x.why_out_of_service);
}

/// Counters of one launch of `launch.kernels[0]`, in passes apart from timing.
struct metrics_order {
  pipeline::branch_ref ref;
  gpu::race_request launch;             // its arguments and seeds, as for a race
  std::vector<std::string> metric_keys; // metric-schema keys; empty: every measured key
  config::profile_tool tool = config::profile_tool::cupti; // who reads the counters ([profile] tool)
  friend bool operator==(const metrics_order&, const metrics_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metrics_order& x) {
  return f(caf::meta::type_name("metrics_order"), x.ref, x.launch, x.metric_keys, x.tool);
}

/// Several profiles on the worker's GPU at once: the runner profiles their kernels in one range
/// profiler session (gpu/runtime/range_profiler.hpp, profile_candidates), so the passes' fixed
/// cost is paid once. The orders share their metric keys and tool; the reply has a metric_set per
/// order, in order.
struct metrics_batch_order {
  std::vector<metrics_order> orders;
  friend bool operator==(const metrics_batch_order&, const metrics_batch_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metrics_batch_order& x) {
  return f(caf::meta::type_name("metrics_batch_order"), x.orders);
}

struct metrics_batch_reply {
  std::vector<gpu::metric_set> sets;
  friend bool operator==(const metrics_batch_reply&, const metrics_batch_reply&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metrics_batch_reply& x) {
  return f(caf::meta::type_name("metrics_batch_reply"), x.sets);
}

/// A whole program on the worker's GPU (program mode, gpu/runner/program_run.hpp): run `trials`
/// times, one after another, each under its watchdog, pinned to the GPU (CUDA_VISIBLE_DEVICES =
/// its UUID) while the worker holds the GPU's lock. A calibrate benchmark runs this way.
struct program_order {
  std::string label;                  // what it is for, in the log ("calibrate l2_hit_latency")
  std::filesystem::path executable;   // run in place, never modified
  std::vector<std::string> arguments; // argv[1..]
  std::uint32_t trials = 1;           // process runs, >= 1
  double watchdog_s = 60;             // seconds per trial; then it is killed (a timeout)
  std::filesystem::path output_dir;   // each trial's output, as trial-<n>.log
  friend bool operator==(const program_order&, const program_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, program_order& x) {
  auto executable = path_field(x.executable);
  auto output_dir = path_field(x.output_dir);
  return f(caf::meta::type_name("program_order"), x.label, executable, x.arguments, x.trials, x.watchdog_s,
           output_dir);
}

/// Whether a program_order ran. A trial that failed, crashed or hit its watchdog still ran: its
/// outcome says how it ended.
enum class program_run_status : std::uint8_t {
  ran,            // every trial ran, each with its own outcome
  cannot_start,   // the program could not be started at all (detail: the spawn's error)
  out_of_service, // the worker cannot use its GPU (detail: why); nothing ran
};

struct program_reply {
  gpu::device_info device;                 // the GPU it ran on
  program_run_status status = program_run_status::ran;
  std::string detail;                      // why it did not run; empty when it ran
  std::vector<gpu::program_trial> trials;  // one per trial, in order, when it ran
  double wall_s = 0;                       // seconds the worker spent on it
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, program_reply& x) {
  return f(caf::meta::type_name("program_reply"), x.device, x.status, x.detail, x.trials, x.wall_s);
}

/// A calibrate benchmark's validation counters, read by Nsight Compute on the worker's GPU under
/// its lock (two passes: count the launches, profile the last; calibrate/engine/counter_check.hpp).
struct counter_order {
  std::string parameter;             // the catalog's name ("dram_bandwidth")
  std::string unit;                  // its unit: a GB/s one is compared with the counted rate
  std::vector<std::string> metrics;  // its validation metrics (Nsight names)
  double measured = 0;               // what its trials measured, in `unit`
  std::filesystem::path executable;  // the built benchmark, run under ncu
  std::filesystem::path dir;         // where ncu's CSV and log files go (jobs/<parameter>/)
  double pass_timeout_s = 60;        // seconds per ncu pass; then it is killed
  // The catalog's rederive formula (calibrate::counter_formula): the value recomputed from the
  // launch's counters as count x scale / over; an empty count: the parameter has none.
  std::string rederive_count, rederive_over;
  double rederive_scale = 1;
  friend bool operator==(const counter_order&, const counter_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, counter_order& x) {
  auto executable = path_field(x.executable);
  auto dir = path_field(x.dir);
  return f(caf::meta::type_name("counter_order"), x.parameter, x.unit, x.metrics, x.measured, executable, dir,
           x.pass_timeout_s, x.rederive_count, x.rederive_over, x.rederive_scale);
}

struct counter_reply {
  gpu::device_info device; // the GPU it ran on
  std::string verdict;     // as the report shows it: "PASS (ncu: ...)", "MISMATCH: ...", "not validated: <why>"
  friend bool operator==(const counter_reply&, const counter_reply&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, counter_reply& x) {
  return f(caf::meta::type_name("counter_reply"), x.device, x.verdict);
}

using gpu_worker_actor = caf::typed_actor<
  caf::replies_to<race_order>::with<race_reply>,          // check every kernel, then time them
  caf::replies_to<metrics_order>::with<gpu::metric_set>,  // counters: CUPTI, else ncu
  caf::replies_to<metrics_batch_order>::with<metrics_batch_reply>, // several: one CUPTI session
  caf::replies_to<program_order>::with<program_reply>,    // a whole program's trials (calibrate)
  caf::replies_to<counter_order>::with<counter_reply>,    // its counters through ncu (calibrate)
  caf::replies_to<query_atom>::with<gpu::device_info>,    // which GPU this worker owns
  caf::reacts_to<restart_atom>,                           // internal: bring a dead runner back
  caf::reacts_to<stop_atom>,                              // stop the runner, release the GPU, quit
  status_handler>;

} // namespace warpforge::messages
