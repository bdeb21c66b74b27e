#pragma once
// One calibration run, as plain code (no CAF, no threads of its own):
//
//   notes + earlier results (resume) -> plan (calibrate/schedule) -> work_queue
//   -> next(gpu): the next ready parameter for an idle GPU, as a measure_request
//   -> measure_parameter (measure.hpp), run by the driver wherever it likes
//   -> record(result): results, notes, reports rewritten (report_files.hpp), observer told
//
// Two drivers step it: `warpforge calibrate` through the calibrator actor (actors/calibrator.hpp:
// a job per parameter, its trials and counters through the GPU's gpu_worker), and
// run_calibration() below, one parameter after another on the calling thread (tests, and the
// reference the actor path is compared with).
//
// The observer is how the run becomes store rows and feed events; the engine itself writes only
// files in the run directory.

#include "calibrate/catalog.hpp"
#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/engine/measure.hpp"
#include "calibrate/engine/run_options.hpp"
#include "calibrate/engine/work_queue.hpp"
#include "calibrate/notes.hpp"
#include "calibrate/results/parameter_result.hpp"
#include "foundation/expected/expected.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::calibrate {

/// Hears about a run as it goes, from the thread that drives it (one call at a time).
class run_observer {
public:
  virtual ~run_observer() = default;
  /// `what` was handed out to be measured on `gpu`.
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
  std::vector<std::string> attempted;                      // handed out by this run, in finishing order
                                                           // (measured or not: see measured_now)
  std::vector<std::string> kept;                           // final results of an earlier run, not measured again
  std::vector<std::pair<std::string, std::string>> deferred; // name, reason
  std::vector<std::string> problems;                       // files not written
  bool interrupted = false;                                // stopped before every parameter was handed out

  std::size_t passing() const;      // results that pass (PASS, PASS_WITH_NOTE)
  std::size_t measured_now() const; // attempted by this run and given a value (not NO_DATA etc.)
  bool operator==(const run_summary&) const = default;
};

/// Where a parameter's benchmark comes from: the built-in registry (bench/registry.hpp) in a
/// real run; tests give their own.
using benchmark_lookup = std::function<const benchmark*(std::string_view parameter)>;

/// The GPUs a run hands work to: `gpus` as given, or, with none, one slot without a GPU (every
/// benchmark is built and SASS-checked, nothing is timed). Warns when the models differ.
std::vector<gpu_slot> worker_slots(const std::vector<gpu_slot>& gpus);

/// The run's state: results, notes, the work queue and the summary. Single-threaded: the driver
/// calls it from one thread at a time; measurements happen outside it.
class calibration_run {
public:
  /// Loads the notes and, on a resume, the run directory's results.json. `cat`, `observer` and
  /// whatever `benchmarks` points into must outlive the run. The error: the notes or an earlier
  /// results.json are unreadable.
  static expected<std::unique_ptr<calibration_run>, std::string> start(const catalog& cat,
                                                                      calibration_options options,
                                                                      run_observer& observer,
                                                                      benchmark_lookup benchmarks = find_benchmark);

  /// The next parameter ready to measure on `gpu` (deferrals met on the way are recorded and the
  /// observer told); nullopt when none is ready now (one in flight must finish first), none is
  /// left, or the run was stopped. The request points into the catalog and the benchmarks.
  std::optional<measure_request> next(const gpu_slot& gpu);
  /// A handed-out parameter's result, measured on `gpu`: recorded, reports rewritten, observer told.
  void record(parameter_result result, const gpu_slot& gpu);
  /// Hands out nothing more (an interrupt); what is in flight may still be recorded.
  void stop();
  /// Nothing in flight and nothing more to hand out.
  bool finished() const;
  /// Parameters handed out and not yet recorded.
  std::size_t in_flight() const { return in_flight_.size(); }
  /// The reports written a last time and the summary (interrupted: some were never handed out).
  run_summary finish();

  calibration_run(const catalog& cat, calibration_options options, run_observer& observer,
                  benchmark_lookup benchmarks, notes loaded);

private:
  void keep_earlier(std::vector<parameter_result> earlier);
  std::vector<scheduled> make_plan();
  void defer(const parameter& what, const std::string& reason);
  void save_notes_and_reports();
  std::vector<parameter_result> ordered_results() const;

  const catalog& cat_;
  calibration_options options_;
  run_observer& observer_;
  benchmark_lookup benchmarks_;
  notes notes_;
  std::map<std::string, parameter_result> results_;
  std::set<std::string> skip_; // final in an earlier run
  std::set<std::string> passed_before_, failed_before_;
  std::optional<work_queue> queue_;
  std::set<std::string> in_flight_;
  bool stopped_ = false;
  run_summary summary_;
};

/// measure_parameter with a job's boundary: an exception (a broken invariant, a file system
/// error) ends this parameter as NO_DATA naming it, not the whole run.
parameter_result measure_guarded(const measure_request& request, bench_steps& steps);

/// The engine-only driver: runs `options` on `gpus` one parameter after another on this thread,
/// handing each to the GPUs in turn (empty: no GPU). `stop_requested` (may be null) is polled
/// between parameters: set, the run stops handing out work and reports interrupted. The error:
/// the run could not start (the notes or an earlier results.json unreadable).
expected<run_summary, std::string> run_calibration(const catalog& cat, const calibration_options& options,
                                                   bench_steps& steps, const std::vector<gpu_slot>& gpus,
                                                   run_observer& observer,
                                                   const std::atomic<bool>* stop_requested = nullptr,
                                                   const benchmark_lookup& benchmarks = find_benchmark);

} // namespace warpforge::calibrate
