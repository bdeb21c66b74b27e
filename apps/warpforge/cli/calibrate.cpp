// `warpforge calibrate`: measure this host's GPU hardware parameters for simulators (docs/calibrate.md).
// Every form becomes one calibrate campaign spec (kind = "calibrate"), recorded in the store like
// any campaign, so a resume reads its options back from the run directory:
//   flags        --max-priority, --only, --reset, --trials, ... written as a spec
//   --campaign   a kind = "calibrate" campaign file (what `warpforge run` hands over)
//   --resume     the spec recorded in an earlier run directory; its final results are kept
// The run itself is calibrate/engine (run_calibration); this file parses, records and prints.
// The notes commands (--defer, --retry, --annotate, --backlog, --progress) measure nothing: they
// are apps/warpforge/cli/calibrate_notes.cpp, given the notes file and catalog resolved here.
// Each parameter is a job row (pending -> running -> finished | failed) with job_started and
// job_finished / job_failed events; results.json and measurements.tsv are the record of values.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/command_output.hpp"
#include "apps/warpforge/cli/user_errors.hpp"

#include "calibrate/catalog.hpp"
#include "calibrate/engine/calibration_run.hpp"
#include "calibrate/engine/report_files.hpp"
#include "calibrate/engine/toolchain_steps.hpp"
#include "calibrate/schedule.hpp"
#include "apps/warpforge/cli/calibrate_notes.hpp"
#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/interrupt.hpp"
#include "apps/warpforge/cli/recording.hpp"
#include "config/campaign_spec.hpp"
#include "foundation/logging/logging.hpp"
#include "storage/database.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <toml++/toml.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace warpforge::cli {

namespace fs = std::filesystem;
namespace cal = warpforge::calibrate;

namespace {

constexpr std::string_view command_name = "warpforge calibrate";

// The flags as a campaign spec's text (toml++ writes it, so every string is quoted right).
std::string spec_text_from_flags(const calibrate_options& options) {
  auto names = [](const std::vector<std::string>& list) {
    toml::array array;
    for (const auto& name : list)
      array.push_back(name);
    return array;
  };
  toml::table section{{"max_priority", static_cast<std::int64_t>(options.max_priority)},
                      {"trials", static_cast<std::int64_t>(options.trials)},
                      {"trial_watchdog_s", options.watchdog_s},
                      {"only", names(options.only)},
                      {"reset", names(options.reset)}};
  if (!options.arch.empty())
    section.insert("arch", options.arch);
  toml::array gpus; // --gpus 0,1 is kept in the spec (a resume uses the same GPUs); "all" is the default
  std::istringstream items{options.gpus};
  for (std::string item; std::getline(items, item, ',');)
    if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos)
      gpus.push_back(static_cast<std::int64_t>(std::stoll(item)));
  if (!options.catalog_path.empty())
    section.insert("catalog", fs::absolute(options.catalog_path).string());
  if (!options.notes_path.empty())
    section.insert("notes", fs::absolute(options.notes_path).string());
  toml::table root{{"name", "calibrate"},
                   {"kind", "calibrate"},
                   {"run_root", fs::absolute(options.run_root).string()},
                   {"feed", toml::table{{"endpoint", "tcp://127.0.0.1:*"}}},
                   {"calibrate", std::move(section)}};
  if (!gpus.empty() && options.gpus != "all")
    root.insert("gpus", std::move(gpus));
  std::ostringstream text;
  text << "# written by warpforge calibrate from its command line\n" << root << '\n';
  return text.str();
}

void print_spec_errors(const toml_reader::placed_errors& errors, std::string_view what) {
  for (const auto& error : errors)
    std::cerr << toml_reader::to_string(error) << '\n';
  std::cerr << command_name << ": " << what << ": " << errors.size() << " error(s); nothing was started\n";
}

// The spec recorded in `run_dir`'s store (the campaign row), validated again.
expected<config::campaign_spec, std::string> recorded_spec(const fs::path& run_dir) {
  auto db = storage::database::open_read_only(run_dir / storage::run_directory::database_file);
  if (!db)
    return unexpected{user_message(db.error())};
  auto id = db->raw().query_int64("SELECT id FROM campaigns ORDER BY id LIMIT 1");
  if (!id)
    return unexpected{run_dir.string() + ": no campaign recorded"};
  auto row = db->load_campaign(*id);
  if (!row)
    return unexpected{run_dir.string() + ": " + user_message(row.error())};
  auto spec = config::parse_campaign(row->spec_toml, row->spec_path);
  if (!spec) {
    print_spec_errors(spec.error(), "the recorded spec");
    return unexpected{"the campaign spec recorded in " + run_dir.string() + " no longer validates"};
  }
  if (spec->kind != config::campaign_kind::calibrate)
    return unexpected{run_dir.string() + " holds an optimize campaign: resume it with warpforge resume"};
  return std::move(*spec);
}

expected<cal::catalog, std::string> load_catalog(const fs::path& path) {
  return path.empty() ? cal::catalog::built_in() : cal::catalog::load(path);
}

// --check-catalog: the catalog's self-check, one problem a line.
exit_code check_catalog(const fs::path& path) {
  auto catalog = load_catalog(path);
  if (!catalog) {
    std::cerr << command_name << ": " << catalog.error() << '\n';
    return exit_code::bad_input;
  }
  const auto problems = cal::self_check(*catalog);
  for (const auto& problem : problems)
    std::cout << problem << '\n';
  std::cout << catalog->parameters().size() << " parameters, " << problems.size() << " problem(s)\n";
  return problems.empty() ? exit_code::ok : exit_code::failure;
}

} // namespace
} // namespace warpforge::cli

namespace warpforge::cli {
namespace {

// Each parameter as a job row and its events. Workers call in from their threads; the runtime's
// calls are not thread-safe, hence the mutex.
// A store write whose failure is logged, not fatal: the files of the run directory hold the results.
template <class Record>
void record_or_warn(actors::runtime& runtime, const Record& record) {
  if (auto written = runtime.record(record); !written)
    logging::get("calibrate")->warn("store write failed: {}", written.error());
}

class recording_observer final : public cal::run_observer {
public:
  recording_observer(actors::runtime& runtime, std::int64_t campaign_id) : runtime_(runtime), campaign_(campaign_id) {}

  void parameter_started(const cal::parameter& what, const cal::gpu_slot& gpu) override {
    std::lock_guard lock{mutex_};
    set_state(what.name, vocabulary::job_state::running, "");
    emit(feed::event_type::job_started, what.name, gpu.ordinal,
         feed::detail{}.add("priority", what.priority).add("gpu_name", gpu.name).json());
  }

  void parameter_finished(const cal::parameter_result& r, const cal::gpu_slot& gpu) override {
    std::lock_guard lock{mutex_};
    const bool passed = cal::is_passing(r.result);
    const std::string status{cal::to_string(r.result)};
    // Not measured: why (the engine's reason), else the first note of what was measured.
    const std::string why = !r.value ? cal::not_measured_reason(r) : r.notes.empty() ? "" : r.notes.front();
    const std::string reason = passed ? "" : status + (why.empty() ? "" : ": " + why);
    set_state(r.name, passed ? vocabulary::job_state::finished : vocabulary::job_state::failed, reason);
    // What was not measured is null with the reason beside it, never 0 (docs/events.md).
    feed::detail detail;
    detail.add("status", status);
    r.value ? detail.add("value", *r.value) : detail.add_null("value");
    detail.add("unit", r.unit);
    cal::has_spread(r.stats) && r.value ? detail.add("cv", r.stats.cv) : detail.add_null("cv");
    detail.add("trials", static_cast<std::uint64_t>(r.stats.n)).add("sass", r.sass_verdict);
    if (!passed)
      detail.add("reason", reason); // job_failed's reason (docs/events.md), as the job row has it
    if (!r.value)
      detail.add("not_measured_reason", cal::not_measured_reason(r));
    else if (!cal::has_spread(r.stats))
      detail.add("not_measured_reason", "cv: " + cal::missing_spread_reason(r.stats));
    emit(passed ? feed::event_type::job_finished : feed::event_type::job_failed, r.name, gpu.ordinal, detail.json());
  }

  void parameter_deferred(const cal::parameter& what, const std::string& reason) override {
    std::lock_guard lock{mutex_};
    set_state(what.name, vocabulary::job_state::pending, "deferred: " + reason);
    emit(feed::event_type::job_failed, what.name, feed::no_gpu,
         feed::detail{}.add("status", "DEFERRED").add("reason", reason).json());
  }

private:
  // The parameter's job row: found (a resume) or made on first use.
  std::optional<std::int64_t> job_id(const std::string& name) {
    if (auto found = jobs_.find(name); found != jobs_.end())
      return found->second;
    auto id = runtime_.record(storage::job_record{campaign_, name, "calibrate:" + name});
    if (!id) {
      logging::get("calibrate")->warn("{}: no job row: {}", name, id.error());
      return std::nullopt;
    }
    return jobs_[name] = *id;
  }
  void set_state(const std::string& name, vocabulary::job_state state, const std::string& reason) {
    if (auto id = job_id(name))
      record_or_warn(runtime_, storage::job_state_change{*id, state, reason});
  }
  void emit(feed::event_type type, const std::string& job, int gpu, std::string detail) {
    feed::event e;
    e.type = type;
    e.job = job;
    e.gpu = gpu;
    e.detail_json = std::move(detail);
    runtime_.emit(std::move(e));
  }

  actors::runtime& runtime_;
  std::int64_t campaign_;
  std::mutex mutex_;
  std::map<std::string, std::int64_t> jobs_; // parameter -> job row

public:
  /// The job rows an earlier run made (a resume), so they are updated rather than duplicated.
  void adopt_jobs(std::map<std::string, std::int64_t> jobs) { jobs_ = std::move(jobs); }
};

std::vector<cal::gpu_slot> gpu_slots(const gpu_fleet& fleet) {
  std::vector<cal::gpu_slot> slots;
  for (int ordinal : fleet.chosen) {
    const auto& device = fleet.device(ordinal);
    slots.push_back(cal::gpu_slot{device.ordinal, device.uuid, device.name, device.arch()});
  }
  return slots;
}

cal::calibration_options engine_options(const config::campaign_spec& spec, const fs::path& run_dir, bool resume) {
  cal::calibration_options options;
  options.schedule.max_priority = spec.calibrate.max_priority;
  options.schedule.only = spec.calibrate.only;
  options.schedule.reset = spec.calibrate.reset;
  options.trials = spec.calibrate.trials;
  options.arch = spec.calibrate.arch;
  options.run_dir = run_dir;
  options.notes_path = spec.calibrate.notes.empty() ? spec.run_root / cal::notes_file_name : spec.calibrate.notes;
  options.resume = resume;
  return options;
}

// One line per parameter: status, value, CV, the published value and the GPU. A parameter without
// a value reads "not measured" and why, never a number; a CV needs two kept trials.
void print_summary(const cal::run_summary& summary, const fs::path& run_dir) {
  std::printf("\n%-30s %-20s %14s %-12s %7s %12s  %s\n", "parameter", "status", "value", "unit", "cv", "known", "gpu");
  for (const auto& r : summary.results) {
    char known[32] = "-";
    if (r.known)
      std::snprintf(known, sizeof known, "%.6g", r.known->value);
    const std::string status{cal::to_string(r.result)};
    if (!r.value) {
      std::printf("%-30s %-20s not measured: %s\n", r.name.c_str(), status.c_str(),
                  cal::not_measured_reason(r).c_str());
      continue;
    }
    char cv[32] = "-";
    if (cal::has_spread(r.stats))
      std::snprintf(cv, sizeof cv, "%.2f%%", r.stats.cv * 100);
    std::printf("%-30s %-20s %14.6g %-12s %7s %12s  %s\n", r.name.c_str(), status.c_str(), *r.value,
                r.unit.c_str(), cv, known, r.gpu_name.c_str());
  }
  const std::size_t attempted = summary.attempted.size(), measured = summary.measured_now();
  std::printf("\n%zu of %zu passed; %zu measured now", summary.passing(), summary.results.size(), measured);
  if (attempted > measured)
    std::printf(" (%zu more tried, not measured)", attempted - measured);
  std::printf(", %zu kept from before, %zu deferred%s\n", summary.kept.size(), summary.deferred.size(),
              summary.interrupted ? "; INTERRUPTED (warpforge calibrate --resume <run-dir>)" : "");
  for (const auto& problem : summary.problems)
    std::printf("  problem: %s\n", problem.c_str());
  std::printf("recorded in %s (report.md, results.json, measurements.tsv, accel-sim.config, gpgpu-sim.config)\n",
              run_dir.string().c_str());
}

} // namespace
} // namespace warpforge::cli

namespace warpforge::cli {
namespace {

// The run directory with its store and feed, the campaign row and, on a resume, its job rows.
struct open_run {
  recording rec;
  std::int64_t campaign_id = 0;
  std::map<std::string, std::int64_t> jobs; // parameter -> job row, from an earlier run
};

// Job rows an earlier run of `run_dir` made, by parameter name (catalog names are [a-z0-9_],
// so they sit in the SQL text as they are).
std::map<std::string, std::int64_t> earlier_jobs(const fs::path& run_dir, const cal::catalog& catalog) {
  std::map<std::string, std::int64_t> jobs;
  auto db = storage::database::open_read_only(run_dir / storage::run_directory::database_file);
  if (!db)
    return jobs;
  for (const auto& p : catalog.parameters())
    if (auto id = db->raw().query_int64("SELECT id FROM jobs WHERE name = '" + p.name + "' ORDER BY id LIMIT 1"))
      jobs[p.name] = *id;
  return jobs;
}

expected<open_run, recording_failure> start_run(const config::campaign_spec& spec, const std::string& spec_path,
                                                const std::optional<fs::path>& resume_dir,
                                                const cal::catalog& catalog) {
  feed::publisher_options feed{spec.feed.endpoint, spec.feed.allow_remote, static_cast<int>(spec.feed.high_water_mark)};
  const std::string command = std::string{command_name} + (resume_dir ? " --resume " + resume_dir->string() : "");
  auto rec = resume_dir ? resume_recording(*resume_dir, spec.name, command, feed, spec.supervision)
                        : start_recording(spec.run_root, spec.run_dir_mode, spec.name, command, feed, spec.supervision);
  if (!rec)
    return unexpected{rec.error()};
  open_run run{std::move(*rec), 0, {}};
  if (resume_dir) {
    auto db = storage::database::open_read_only(run.rec.dir.database_path());
    auto id = db ? db->raw().query_int64("SELECT id FROM campaigns ORDER BY id LIMIT 1")
                 : expected<std::int64_t, storage::store_error>{unexpected{db.error()}};
    if (!id)
      return unexpected{recording_failure{exit_code::bad_input, "no campaign recorded in " + resume_dir->string()}};
    run.campaign_id = *id;
    run.jobs = earlier_jobs(*resume_dir, catalog);
    return run;
  }
  auto id = run.rec.runtime->record(storage::campaign_record{spec.name, spec_path, spec.raw_text,
                                                             run.rec.dir.path().string()});
  if (!id)
    return unexpected{recording_failure{exit_code::failure, "cannot record the campaign: " + id.error()}};
  run.campaign_id = *id;
  return run;
}

// Sets `stop` once SIGINT/SIGTERM arrives, until `done`: the engine polls it between parameters.
std::thread interrupt_watcher(std::atomic<bool>& stop, const std::atomic<bool>& done) {
  watch_for_interrupt();
  return std::thread{[&stop, &done] {
    while (!done.load()) {
      if (interrupted())
        stop.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
  }};
}

exit_code finish_run(open_run& run, const expected<cal::run_summary, std::string>& summary, bool has_gpu) {
  auto& runtime = *run.rec.runtime;
  auto state = vocabulary::campaign_state::finished;
  std::string reason;
  exit_code code = exit_code::ok;
  if (!summary) {
    state = vocabulary::campaign_state::failed;
    reason = summary.error();
    code = exit_code::bad_input;
  } else if (summary->interrupted) {
    state = vocabulary::campaign_state::interrupted;
    reason = "interrupted; warpforge calibrate --resume " + run.rec.dir.path().string();
    code = exit_code::interrupted;
  } else if (!has_gpu) {
    state = vocabulary::campaign_state::failed;
    reason = "no GPU: the benchmarks were built (and SASS-checked where a disassembler is) but not measured";
    code = exit_code::no_gpu;
  }
  record_or_warn(runtime, storage::campaign_state_change{run.campaign_id, state, reason});
  feed::event e;
  e.type = state == vocabulary::campaign_state::finished      ? feed::event_type::campaign_finished
           : state == vocabulary::campaign_state::interrupted ? feed::event_type::campaign_interrupted
                                                              : feed::event_type::campaign_failed;
  e.detail_json = feed::detail{}.add("reason", reason).add("passed", summary ? summary->passing() : 0).json();
  runtime.emit(std::move(e));
  if (summary && !quiet_mode()) // --quiet: the tables stay in report.md and results.json
    print_summary(*summary, run.rec.dir.path());
  if (!reason.empty())
    std::cerr << command_name << ": " << reason << '\n';
  runtime.stop();
  logging::shutdown();
  return code;
}

} // namespace
} // namespace warpforge::cli

namespace warpforge::cli {
namespace {

// The spec's gpus as --gpus spells them: "all" or "0,2".
std::string gpus_option(const config::gpu_selection& selection) {
  if (selection.kind == config::gpu_selection_kind::all)
    return "all";
  std::string text;
  for (auto ordinal : selection.ordinals)
    text += (text.empty() ? "" : ",") + std::to_string(ordinal);
  return text;
}

struct run_request {
  config::campaign_spec spec;
  std::string spec_path;                // as recorded in the campaign row
  std::optional<fs::path> resume_dir;   // set: continue this run directory
  std::string gpus = "all";             // "all" or a comma list of ordinals
  std::chrono::milliseconds lock_timeout{cal::default_lock_timeout};
};

exit_code run_calibrate(const run_request& request) {
  auto catalog = load_catalog(request.spec.calibrate.catalog);
  if (!catalog) {
    std::cerr << command_name << ": " << catalog.error() << '\n';
    return exit_code::bad_input;
  }
  const auto resume_options = engine_options(request.spec, {}, request.resume_dir.has_value());
  if (const auto problems = cal::check_options(*catalog, resume_options.schedule); !problems.empty()) {
    for (const auto& problem : problems)
      std::cerr << command_name << ": " << problem << '\n';
    return exit_code::usage;
  }
  auto fleet = discover_gpus(request.gpus);
  if (!fleet) {
    std::cerr << command_name << ": --gpus: " << fleet.error() << '\n';
    return exit_code::usage;
  }
  if (!fleet->usable())
    std::cerr << command_name << ": no GPU (" << fleet->why_none << "): benchmarks are built and SASS-checked only\n";
  auto run = start_run(request.spec, request.spec_path, request.resume_dir, *catalog);
  if (!run) {
    std::cerr << command_name << ": " << run.error().message << '\n';
    return run.error().code;
  }
  note_run_directory(run->rec.dir.path()); // for --json
  auto& runtime = *run->rec.runtime;
  recording_observer observer{runtime, run->campaign_id};
  observer.adopt_jobs(run->jobs);
  record_or_warn(runtime, storage::campaign_state_change{run->campaign_id, vocabulary::campaign_state::running, ""});
  feed::event started;
  started.type = feed::event_type::campaign_started;
  started.detail_json = feed::detail{}.add("kind", "calibrate").add("resume", request.resume_dir.has_value()).json();
  runtime.emit(std::move(started));

  cal::toolchain_steps_options step_options;
  step_options.trial_watchdog =
    std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(request.spec.calibrate.trial_watchdog_s));
  step_options.lock_timeout = request.lock_timeout;
  step_options.holder = std::string{command_name} + " " + run->rec.dir.path().string();
  cal::toolchain_steps steps{step_options};
  std::atomic<bool> stop{false}, done{false};
  auto watcher = interrupt_watcher(stop, done);
  const auto options = engine_options(request.spec, run->rec.dir.path(), request.resume_dir.has_value());
  auto summary = cal::run_calibration(*catalog, options, steps, gpu_slots(*fleet), observer, &stop);
  done.store(true);
  watcher.join();
  return finish_run(*run, summary, fleet->usable());
}

// The notes and catalog a notes command works on: the flags', else a --resume's recorded spec's,
// else the defaults (<run-root>/calibrate-notes.json, the built-in catalog). A run directory
// without a readable store still serves --progress (its results.json) when --notes names the file.
expected<notes_command_files, std::string> notes_files(const calibrate_options& options) {
  notes_command_files files{options.notes_path, options.catalog_path};
  auto spec = options.resume_dir.empty()
                ? expected<config::campaign_spec, std::string>{unexpected{std::string{"no run directory"}}}
                : recorded_spec(options.resume_dir);
  if (!spec && !options.resume_dir.empty() && files.notes.empty())
    return unexpected{spec.error() + " (name the notes file with --notes)"};
  if (!spec) {
    if (files.notes.empty())
      files.notes = fs::path{options.run_root} / cal::notes_file_name;
    return files;
  }
  if (files.notes.empty())
    files.notes = spec->calibrate.notes.empty() ? spec->run_root / cal::notes_file_name : spec->calibrate.notes;
  if (files.catalog.empty())
    files.catalog = spec->calibrate.catalog;
  return files;
}

} // namespace

exit_code calibrate(const calibrate_options& options) {
  if (options.check_catalog)
    return check_catalog(options.catalog_path);
  if (wants_notes_command(options)) {
    auto files = notes_files(options);
    if (!files) {
      std::cerr << command_name << ": " << files.error() << '\n';
      return exit_code::bad_input;
    }
    return calibrate_notes_command(options, *files);
  }
  run_request request;
  request.lock_timeout = options.lock_timeout;
  request.gpus = options.gpus.empty() ? "all" : options.gpus;
  if (!options.resume_dir.empty()) {
    auto spec = recorded_spec(options.resume_dir);
    if (!spec) {
      std::cerr << command_name << ": " << spec.error() << '\n';
      return exit_code::bad_input;
    }
    request.spec = std::move(*spec);
    request.spec_path = request.spec.file;
    // --reset on a resume adds to the recorded spec's; nothing else of the flags changes it.
    auto& reset = request.spec.calibrate.reset;
    reset.insert(reset.end(), options.reset.begin(), options.reset.end());
    request.resume_dir = fs::path{options.resume_dir};
    request.gpus = options.gpus.empty() ? gpus_option(request.spec.gpus) : options.gpus;
    return run_calibrate(request);
  }
  const bool from_file = !options.campaign_path.empty();
  auto spec = from_file ? config::load_campaign(options.campaign_path)
                        : config::parse_campaign(spec_text_from_flags(options), fs::current_path() / "calibrate.toml");
  if (!spec) {
    print_spec_errors(spec.error(), from_file ? options.campaign_path : std::string{"the command line"});
    return exit_code::bad_input;
  }
  if (spec->kind != config::campaign_kind::calibrate) {
    std::cerr << command_name << ": " << options.campaign_path
              << " is an optimize campaign (kind = \"calibrate\" is needed): use warpforge run\n";
    return exit_code::bad_input;
  }
  return calibrate_campaign(*spec, from_file ? options.campaign_path : "(command line)", options.gpus);
}

exit_code calibrate_campaign(const config::campaign_spec& spec, const std::string& spec_path, const std::string& gpus) {
  run_request request;
  request.spec = spec;
  request.spec_path = spec_path;
  request.gpus = gpus.empty() ? gpus_option(spec.gpus) : gpus;
  return run_calibrate(request);
}

} // namespace warpforge::cli
