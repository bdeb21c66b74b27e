#include "calibrate/engine/calibration_run.hpp"

#include "calibrate/bench/registry.hpp"
#include "calibrate/engine/report_files.hpp"
#include "calibrate/schedule.hpp"
#include "foundation/logging/logging.hpp"

#include <algorithm>

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

} // namespace

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

calibration_run::calibration_run(const catalog& cat, calibration_options options, run_observer& observer,
                                 benchmark_lookup benchmarks, notes loaded)
    : cat_(cat), options_(std::move(options)), observer_(observer), benchmarks_(std::move(benchmarks)),
      notes_(std::move(loaded)) {}

expected<std::unique_ptr<calibration_run>, std::string> calibration_run::start(const catalog& cat,
                                                                              calibration_options options,
                                                                              run_observer& observer,
                                                                              benchmark_lookup benchmarks) {
  auto loaded = options.notes_path.empty() ? expected<notes, std::string>{notes{}} : notes::load(options.notes_path);
  if (!loaded)
    return unexpected{"notes " + options.notes_path.string() + ": " + loaded.error()};
  const bool resume = options.resume;
  const auto run_dir = options.run_dir;
  auto run = std::make_unique<calibration_run>(cat, std::move(options), observer, std::move(benchmarks),
                                               std::move(*loaded));
  if (resume) {
    auto earlier = read_results(run_dir);
    if (!earlier)
      return unexpected{"cannot resume: " + earlier.error()};
    run->keep_earlier(std::move(*earlier));
  }
  run->queue_.emplace(run->make_plan(), run->passed_before_, run->failed_before_);
  return run;
}

// Earlier results of a resume: final ones are kept and not measured again (unless reset).
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

std::optional<measure_request> calibration_run::next(const gpu_slot& gpu) {
  while (auto item = queue_->take()) {
    const parameter& what = *item->what;
    if (!item->deferred_reason.empty()) {
      defer(what, item->deferred_reason);
      continue;
    }
    in_flight_.insert(what.name);
    observer_.parameter_started(what, gpu);
    log()->info("{}: measuring on GPU {} ({})", what.name, gpu.ordinal, gpu.name.empty() ? "none" : gpu.name);
    measure_request request;
    request.what = &what;
    request.bench = benchmarks_(what.name);
    request.gpu = gpu;
    request.trials = options_.trials;
    request.throttle_fraction = options_.throttle_fraction;
    request.arch_override = options_.arch;
    request.run_dir = options_.run_dir;
    return request;
  }
  return std::nullopt;
}

void calibration_run::record(parameter_result result, const gpu_slot& gpu) {
  const auto name = result.name;
  if (in_flight_.erase(name) == 0) {
    log()->warn("{}: a result for a parameter not in flight is ignored", name);
    return;
  }
  if (result.value)
    log()->info("{}: {} {} {} ({} trials kept)", name, to_string(result.result), *result.value, result.unit,
                result.stats.n);
  else
    log()->info("{}: {}, not measured: {}", name, to_string(result.result), not_measured_reason(result));
  if (is_final(result.result))
    notes_.clear_retry(name); // a requested retry was taken
  if (is_final(result.result) && !is_passing(result.result))
    notes_.annotate(name, std::string{to_string(result.result)} +
                            (result.notes.empty() ? std::string{} : ": " + result.notes.front()));
  // Without a GPU nothing is measured, so no dependency can fail: every benchmark is built and gated.
  queue_->finish(name, satisfies_dependents(result.result) || !gpu.has_gpu());
  summary_.attempted.push_back(name);
  results_[name] = result;
  save_notes_and_reports();
  observer_.parameter_finished(result, gpu);
}

void calibration_run::stop() {
  stopped_ = true;
  queue_->stop();
}

bool calibration_run::finished() const {
  // Waiting parameters with nothing in flight are handed out by the next next() (ready, or
  // deferred), unless the run was stopped: then they stay waiting and the run is interrupted.
  return in_flight_.empty() && (stopped_ || queue_->waiting() == 0);
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
  summary_.deferred.emplace_back(what.name, reason);
  results_[what.name] = std::move(result);
  save_notes_and_reports();
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
    if (std::find(summary_.problems.begin(), summary_.problems.end(), problem) == summary_.problems.end()) {
      summary_.problems.push_back(problem);
      observer_.problem(problem);
    }
  }
}

std::vector<parameter_result> calibration_run::ordered_results() const {
  std::vector<parameter_result> ordered;
  for (const auto& p : cat_.parameters())
    if (auto found = results_.find(p.name); found != results_.end())
      ordered.push_back(found->second);
  return ordered;
}

run_summary calibration_run::finish() {
  save_notes_and_reports();
  summary_.results = ordered_results();
  summary_.interrupted = queue_->waiting() > 0;
  return summary_;
}

parameter_result measure_guarded(const measure_request& request, bench_steps& steps) {
  try {
    return measure_parameter(request, steps);
  } catch (const std::exception& e) {
    log()->error("{}: internal error: {}", request.what->name, e.what());
    parameter_result result;
    result.name = request.what->name;
    result.unit = request.what->unit;
    result.result = status::no_data;
    result.notes.push_back(std::string{"internal error: "} + e.what());
    return result;
  }
}

expected<run_summary, std::string> run_calibration(const catalog& cat, const calibration_options& options,
                                                   bench_steps& steps, const std::vector<gpu_slot>& gpus,
                                                   run_observer& observer, const std::atomic<bool>* stop_requested,
                                                   const benchmark_lookup& benchmarks) {
  auto run = calibration_run::start(cat, options, observer, benchmarks);
  if (!run)
    return unexpected{run.error()};
  const auto slots = worker_slots(gpus);
  for (std::size_t turn = 0;; ++turn) {
    if (stop_requested != nullptr && stop_requested->load())
      (*run)->stop();
    const auto& gpu = slots[turn % slots.size()];
    auto request = (*run)->next(gpu);
    if (!request)
      break; // one at a time: nothing is in flight, so nothing more will become ready
    (*run)->record(measure_guarded(*request, steps), gpu);
  }
  return (*run)->finish();
}

} // namespace warpforge::calibrate
