#pragma once
// calibrator (one per calibrate campaign): calibration_order -> calibration_end. It steps the
// CAF-free calibration engine (calibrate/engine/calibration_run.hpp): each ready parameter goes
// to a job on an idle GPU, whose trials and counters go through that GPU's gpu_worker
// (program_order, counter_order in gpu_worker.hpp); each job answers with a measured_parameter,
// which the engine records (reports rewritten, store rows and events) before the GPU gets the next.

#include "calibrate/engine/calibration_run.hpp"
#include "messages/atoms.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/inspect_support.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <map>
#include <string>

// --- the engine's nouns, given inspects ------------------------------------------------------------

namespace warpforge::calibrate {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, schedule_options& x) {
  return f(caf::meta::type_name("schedule_options"), x.max_priority, x.only, x.reset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, calibration_options& x) {
  auto run_dir = messages::path_field(x.run_dir);
  auto notes_path = messages::path_field(x.notes_path);
  return f(caf::meta::type_name("calibration_options"), x.schedule, x.trials, x.throttle_fraction, x.arch, run_dir,
           notes_path, x.resume);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, known_value& x) {
  return f(caf::meta::type_name("known_value"), x.arch, x.value, x.source);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, curve_point& x) {
  return f(caf::meta::type_name("curve_point"), x.x, x.y);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trial_stats& x) {
  return f(caf::meta::type_name("trial_stats"), x.n, x.discarded, x.invalid, x.median, x.mean, x.stddev, x.cv,
           x.ci95_low, x.ci95_high, x.ci_level, x.max_clock_mhz);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, parameter_result& x) {
  auto value = messages::optional_field(x.value);
  auto known = messages::optional_field(x.known);
  return f(caf::meta::type_name("parameter_result"), x.name, x.unit, x.result, x.stats, value, known,
           x.sass_verdict, x.counter_verdict, x.arch, x.gpu_name, x.notes, x.curve, x.benchmark_file,
           x.measured_at);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_summary& x) {
  return f(caf::meta::type_name("run_summary"), x.results, x.attempted, x.kept, x.deferred, x.problems,
           x.interrupted);
}

} // namespace warpforge::calibrate

namespace warpforge::messages {

/// Run one calibration to its end. Asked again (the asker's retry after a restart), it answers
/// the same end; a restarted calibrator continues from the run directory's results.json.
struct calibration_order {
  calibrate::calibration_options options;   // what to measure; options.run_dir holds everything
  std::int64_t campaign_id = 0;             // the campaign row its parameters' job rows belong to
  std::map<std::string, std::int64_t> jobs; // parameter -> the job row an earlier run made (resume)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, calibration_order& x) {
  return f(caf::meta::type_name("calibration_order"), x.options, x.campaign_id, x.jobs);
}

/// How a calibration ended.
struct calibration_end {
  calibrate::run_summary summary; // every result the run directory holds, and what this run did
  std::string cannot_start;       // non-empty: it did not start (the notes or results.json unreadable)
  friend bool operator==(const calibration_end&, const calibration_end&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, calibration_end& x) {
  return f(caf::meta::type_name("calibration_end"), x.summary, x.cannot_start);
}

/// A job's answer: one parameter measured (or why not) on one GPU.
struct measured_parameter {
  calibrate::parameter_result result;
  int gpu = -1; // the ordinal it ran on; -1: no GPU (built and SASS-checked only)
  worker_service service = worker_service::in_service; // out_of_service: the GPU gets no more work
  friend bool operator==(const measured_parameter&, const measured_parameter&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, measured_parameter& x) {
  return f(caf::meta::type_name("measured_parameter"), x.result, x.gpu, x.service);
}

using calibrator_actor = caf::typed_actor<
  caf::replies_to<calibration_order>::with<calibration_end>, // measure the plan to its end
  caf::reacts_to<measured_parameter>,                        // internal: a job's result
  caf::reacts_to<interrupt_atom>,                            // hand out nothing more; jobs in flight finish
  caf::reacts_to<stop_atom>,                                 // quit (jobs in flight are dropped)
  status_handler>;

} // namespace warpforge::messages
