#include "calibrate/engine/calibration_run.hpp"

#include "calibrate/bench/registry.hpp"
#include "calibrate/engine/measure.hpp"
#include "calibrate/engine/report_files.hpp"
#include "calibrate/engine/work_queue.hpp"
#include "calibrate/notes.hpp"
#include "calibrate/schedule.hpp"
#include "foundation/logging/logging.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace warpforge::calibrate {

void run_observer::parameter_started(const parameter&, const gpu_slot&) {}
void run_observer::parameter_finished(const parameter_result&, const gpu_slot&) {}
void run_observer::parameter_deferred(const parameter&, const std::string&) {}
void run_observer::problem(const std::string&) {}

bool is_final(status result) {
  return result != status::no_data;
}

std::size_t run_summary::passing() const {
  return static_cast<std::size_t>(
    std::count_if(results.begin(), results.end(), [](const parameter_result& r) { return is_passing(r.result); }));
}

std::size_t run_summary::measured_now() const {
  return static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [&](const parameter_result& r) {
    return was_measured(r) && std::find(attempted.begin(), attempted.end(), r.name) != attempted.end();
  }));
}

namespace {

std::shared_ptr<spdlog::logger> log() {
  return logging::get("calibrate");
}

// The run's shared state: results, notes and the summary, behind one mutex; the workers call in.
class calibration_run {
public:
  calibration_run(const catalog& cat, const calibration_options& options, bench_steps& steps,
                  run_observer& observer, const benchmark_lookup& benchmarks, notes loaded)
      : cat_(cat), options_(options), steps_(steps), observer_(observer), benchmarks_(benchmarks),
        notes_(std::move(loaded)) {}

  // Earlier results of a resume: final ones are kept and not measured again (unless reset).
  void keep_earlier(std::vector<parameter_result> earlier);
  std::vector<scheduled> make_plan();
  // The names an earlier run settled, split by whether they passed (for the work queue).
  const std::set<std::string>& passed_before() const { return passed_before_; }
  const std::set<std::string>& failed_before() const { return failed_before_; }
  void work(work_queue& queue, const gpu_slot& gpu, const std::atomic<bool>* stop_requested);
  run_summary finish(bool interrupted);

private:
  void record(parameter_result result, const gpu_slot& gpu);
  parameter_result measure(const parameter& what, const gpu_slot& gpu);
  void defer(const parameter& what, const std::string& reason);
  void save_notes_and_reports(); // under mutex_
  std::vector<parameter_result> ordered_results() const; // under mutex_

  const catalog& cat_;
  const calibration_options& options_;
  bench_steps& steps_;
  run_observer& observer_;
  const benchmark_lookup& benchmarks_;
  std::mutex mutex_;
  notes notes_;
  std::map<std::string, parameter_result> results_;
  std::set<std::string> skip_; // final in an earlier run
  std::set<std::string> passed_before_, failed_before_;
  run_summary summary_;
};

void calibration_run::keep_earlier(std::vector<parameter_result> earlier) {
  const auto& reset = options_.schedule.reset;
  for (auto& result : earlier) {
    if (std::find(reset.begin(), reset.end(), result.name) != reset.end() || cat_.find(result.name) == nullptr)
      continue;
    if (is_final(result.result) && !notes_.retry_requested(result.name)) {
      skip_.insert(result.name);
      summary_.kept.push_back(result.name);
    }
    results_[result.name] = std::move(result);
  }
}

std::vector<scheduled> calibration_run::make_plan() {
  for (const auto& name : skip_)
    (satisfies_dependents(results_[name].result) ? passed_before_ : failed_before_).insert(name);
  auto planned = plan(cat_, options_.schedule, notes_, passed_before_, failed_before_);
  std::erase_if(planned, [&](const scheduled& s) { return skip_.count(s.what->name) > 0; });
  return planned;
}

void calibration_run::work(work_queue& queue, const gpu_slot& gpu, const std::atomic<bool>* stop_requested) {
  while (true) {
    if (stop_requested != nullptr && stop_requested->load())
      queue.stop();
    auto item = queue.next();
    if (!item)
      return;
    const parameter& what = *item->what;
    if (!item->deferred_reason.empty()) {
      defer(what, item->deferred_reason);
      continue;
    }
    observer_.parameter_started(what, gpu);
    log()->info("{}: measuring on GPU {} ({})", what.name, gpu.ordinal, gpu.name.empty() ? "none" : gpu.name);
    auto result = measure(what, gpu);
    // Without a GPU nothing is measured, so no dependency can fail: every benchmark is built and gated.
    const bool passed = satisfies_dependents(result.result) || !gpu.has_gpu();
    // Stop before finishing: a worker woken by this finish must already see the queue stopped.
    if (stop_requested != nullptr && stop_requested->load())
      queue.stop();
    record(std::move(result), gpu);
    queue.finish(what.name, passed);
  }
}

// measure_parameter, with the thread's boundary: an exception (a broken invariant, a file system
// error) ends this parameter as NO_DATA naming it, not the whole process.
parameter_result calibration_run::measure(const parameter& what, const gpu_slot& gpu) {
  measure_request request;
  request.what = &what;
  request.bench = benchmarks_(what.name);
  request.gpu = gpu;
  request.trials = options_.trials;
  request.throttle_fraction = options_.throttle_fraction;
  request.arch_override = options_.arch;
  request.run_dir = options_.run_dir;
  try {
    return measure_parameter(request, steps_);
  } catch (const std::exception& e) {
    log()->error("{}: internal error: {}", what.name, e.what());
    parameter_result result;
    result.name = what.name;
    result.unit = what.unit;
    result.result = status::no_data;
    result.notes.push_back(std::string{"internal error: "} + e.what());
    return result;
  }
}

void calibration_run::record(parameter_result result, const gpu_slot& gpu) {
  const auto name = result.name;
  if (result.value)
    log()->info("{}: {} {} {} ({} trials kept)", name, to_string(result.result), *result.value, result.unit,
                result.stats.n);
  else
    log()->info("{}: {}, not measured: {}", name, to_string(result.result), not_measured_reason(result));
  {
    std::lock_guard lock{mutex_};
    if (is_final(result.result))
      notes_.clear_retry(name); // a requested retry was taken
    if (is_final(result.result) && !is_passing(result.result))
      notes_.annotate(name, std::string{to_string(result.result)} +
                              (result.notes.empty() ? std::string{} : ": " + result.notes.front()));
    summary_.attempted.push_back(name);
    results_[name] = result;
    save_notes_and_reports();
  }
  observer_.parameter_finished(result, gpu);
}

// A deferred parameter has a NO_DATA result with the reason (not final: a later resume measures
// it once its dependency passes). It is not deferred in the notes: there a deferral is a person's
// decision that holds until mark_retry, and this one lifts by itself.
void calibration_run::defer(const parameter& what, const std::string& reason) {
  log()->info("{}: deferred: {}", what.name, reason);
  parameter_result result;
  result.name = what.name;
  result.unit = what.unit;
  result.result = status::no_data;
  result.notes.push_back("deferred: " + reason);
  {
    std::lock_guard lock{mutex_};
    summary_.deferred.emplace_back(what.name, reason);
    results_[what.name] = std::move(result);
    save_notes_and_reports();
  }
  observer_.parameter_deferred(what, reason);
}

void calibration_run::save_notes_and_reports() {
  std::vector<std::string> failed;
  if (!options_.notes_path.empty())
    if (auto saved = notes_.save(options_.notes_path); !saved)
      failed.push_back("notes not saved: " + saved.error());
  if (auto written = write_reports(options_.run_dir, ordered_results(), cat_); !written)
    for (const auto& error : written.error())
      failed.push_back("report not written: " + error);
  for (const auto& problem : failed) {
    log()->warn("{}", problem);
    if (std::find(summary_.problems.begin(), summary_.problems.end(), problem) == summary_.problems.end())
      summary_.problems.push_back(problem);
  }
}

std::vector<parameter_result> calibration_run::ordered_results() const {
  std::vector<parameter_result> ordered;
  for (const auto& p : cat_.parameters())
    if (auto found = results_.find(p.name); found != results_.end())
      ordered.push_back(found->second);
  return ordered;
}

run_summary calibration_run::finish(bool interrupted) {
  std::lock_guard lock{mutex_};
  save_notes_and_reports();
  summary_.results = ordered_results();
  summary_.interrupted = interrupted;
  return std::move(summary_);
}

// One worker per GPU; with none, one worker that builds and SASS-checks only.
std::vector<gpu_slot> worker_slots(const std::vector<gpu_slot>& gpus) {
  if (gpus.empty())
    return {gpu_slot{}};
  std::set<std::string> names;
  for (const auto& gpu : gpus)
    names.insert(gpu.name);
  if (names.size() > 1)
    log()->warn("the GPUs of this run are not all the same model; each parameter is measured on one of them "
                "(its result names which)");
  return gpus;
}

} // namespace

expected<run_summary, std::string> run_calibration(const catalog& cat, const calibration_options& options,
                                                   bench_steps& steps, const std::vector<gpu_slot>& gpus,
                                                   run_observer& observer, const std::atomic<bool>* stop_requested,
                                                   const benchmark_lookup& benchmarks) {
  auto loaded = options.notes_path.empty() ? expected<notes, std::string>{notes{}} : notes::load(options.notes_path);
  if (!loaded)
    return unexpected{"notes " + options.notes_path.string() + ": " + loaded.error()};
  calibration_run run{cat, options, steps, observer, benchmarks, std::move(*loaded)};
  if (options.resume) {
    auto earlier = read_results(options.run_dir);
    if (!earlier)
      return unexpected{"cannot resume: " + earlier.error()};
    run.keep_earlier(std::move(*earlier));
  }
  work_queue queue{run.make_plan(), run.passed_before(), run.failed_before()};
  const auto slots = worker_slots(gpus);
  std::vector<std::thread> workers;
  for (const auto& slot : slots)
    workers.emplace_back([&run, &queue, slot, stop_requested] { run.work(queue, slot, stop_requested); });
  for (auto& worker : workers)
    worker.join();
  const bool interrupted = queue.waiting() > 0;
  return run.finish(interrupted);
}

} // namespace warpforge::calibrate
