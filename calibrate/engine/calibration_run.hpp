#pragma once
// One calibration run, as plain code (no CAF):
//
//   notes + earlier results (resume) -> plan (calibrate/schedule) -> work_queue
//   -> one worker thread per GPU: next ready parameter -> measure_parameter (measure.hpp)
//   -> record: results, notes, reports rewritten (report_files.hpp), observer told
//
// The observer is how the command line turns a run into store rows and feed events; the engine
// itself writes only files in the run directory.

#include "calibrate/catalog.hpp"
#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/engine/run_options.hpp"
#include "calibrate/results/parameter_result.hpp"
#include "foundation/expected/expected.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::calibrate {

/// Hears about a run as it goes. Called from the worker threads (one per GPU) — implementations
/// must be thread-safe; the engine calls them outside its own locks.
class run_observer {
public:
  virtual ~run_observer() = default;
  /// A worker began measuring `what` on `gpu`.
  virtual void parameter_started(const parameter& what, const gpu_slot& gpu);
  /// Its result, once recorded (results.json already holds it).
  virtual void parameter_finished(const parameter_result& result, const gpu_slot& gpu);
  /// `what` is not measured in this run: a dependency did not pass, or the plan deferred it.
  virtual void parameter_deferred(const parameter& what, const std::string& reason);
  /// Something went wrong around the measurements (a report or the notes not written).
  virtual void problem(const std::string& what);
};

/// Whether a status ends a parameter for a resume: all but NO_DATA (nothing was measured, e.g.
/// no GPU, a deferral, or a host problem) are final, so a resume measures only the rest.
bool is_final(status result);

struct run_summary {
  std::vector<parameter_result> results;                   // all the run directory holds, catalog order
  std::vector<std::string> attempted;                      // handed to a worker by this call, in finishing
                                                           // order (measured or not: see measured_now)
  std::vector<std::string> kept;                           // final results of an earlier run, not measured again
  std::vector<std::pair<std::string, std::string>> deferred; // name, reason
  std::vector<std::string> problems;                       // files not written
  bool interrupted = false;                                // stopped before every parameter was handed out

  std::size_t passing() const;      // results that pass (PASS, PASS_WITH_NOTE)
  std::size_t measured_now() const; // attempted by this call and given a value (not NO_DATA etc.)
};

/// Where a parameter's benchmark comes from: the built-in registry (bench/registry.hpp) in a
/// real run; tests give their own.
using benchmark_lookup = std::function<const benchmark*(std::string_view parameter)>;

/// Runs `options` on `gpus` (empty: no GPU — every benchmark is built and SASS-checked, nothing is
/// timed). `stop_requested` (may be null) is polled between parameters: set, the run stops
/// handing out work, lets the parameters in flight finish and reports interrupted. The error:
/// the run could not start (the notes or an earlier results.json unreadable).
expected<run_summary, std::string> run_calibration(const catalog& cat, const calibration_options& options,
                                                   bench_steps& steps, const std::vector<gpu_slot>& gpus,
                                                   run_observer& observer,
                                                   const std::atomic<bool>* stop_requested = nullptr,
                                                   const benchmark_lookup& benchmarks = find_benchmark);

} // namespace warpforge::calibrate
