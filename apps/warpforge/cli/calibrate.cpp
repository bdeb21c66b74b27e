// `warpforge calibrate`: measure this host's GPU hardware parameters for simulators (docs/calibrate.md).
// Every form becomes one calibrate campaign spec (kind = "calibrate"), recorded in the store like
// any campaign, so a resume reads its options back from the run directory:
//   flags        --max-priority, --only, --reset, --trials, ... written as a spec
//   --campaign   a kind = "calibrate" campaign file (what `warpforge run` hands over)
//   --resume     the spec recorded in an earlier run directory; its final results are kept
// The run itself is the calibrator actor over calibrate/engine, under the supervisor, with a
// gpu_worker per GPU (actors/calibrator.hpp); this file parses, records the campaign and prints.
// The notes commands (--defer, --retry, --annotate, --backlog, --progress) measure nothing: they
// are apps/warpforge/cli/calibrate_notes.cpp, given the notes file and catalog resolved here.
// Each parameter is a job row (pending -> running -> finished | failed) with job_started and
// job_finished / job_failed events (actors/calibration_recorder.hpp); results.json and
// measurements.tsv are the record of values.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/command_output.hpp"
#include "apps/warpforge/cli/user_errors.hpp"

#include "calibrate/catalog.hpp"
#include "calibrate/engine/calibration_run.hpp"
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

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

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

// A store write whose failure is logged, not fatal: the files of the run directory hold the results.
template <class Record>
void record_or_warn(actors::runtime& runtime, const Record& record) {
  if (auto written = runtime.record(record); !written)
    logging::get("calibrate")->warn("store write failed: {}", written.error());
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
                                                actors::calibrator_config calibrator) {
  const auto& catalog = *calibrator.catalog;
  feed::publisher_options feed{spec.feed.endpoint, spec.feed.allow_remote, static_cast<int>(spec.feed.high_water_mark)};
  const std::string command = std::string{command_name} + (resume_dir ? " --resume " + resume_dir->string() : "");
  auto rec = resume_dir ? resume_recording(*resume_dir, spec.name, command, feed, spec.supervision, std::nullopt,
                                           std::move(calibrator))
                        : start_recording(spec.run_root, spec.run_dir_mode, spec.name, command, feed, spec.supervision,
                                          std::nullopt, std::move(calibrator));
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

exit_code finish_run(open_run& run, const expected<messages::calibration_end, std::string>& end, bool has_gpu) {
  auto& runtime = *run.rec.runtime;
  auto state = vocabulary::campaign_state::finished;
  std::string reason;
  exit_code code = exit_code::ok;
  const cal::run_summary* summary = end && end->cannot_start.empty() ? &end->summary : nullptr;
  if (!end) { // the supervisor gave up
    state = vocabulary::campaign_state::failed;
    reason = end.error() + "; warpforge calibrate --resume " + run.rec.dir.path().string();
    code = exit_code::failure;
  } else if (!summary) { // the notes or results.json unreadable
    state = vocabulary::campaign_state::failed;
    reason = end->cannot_start;
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

// The calibrate campaign's actors: a gpu_worker per chosen GPU that runs programs only (no
// runner: nothing of ours holds a CUDA context while a benchmark measures), and the calibrator
// with the host's nvcc and cuobjdump.
actors::calibrator_config calibrator_for(const run_request& request, cal::catalog catalog, const gpu_fleet& fleet) {
  const auto watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::duration<double>(request.spec.calibrate.trial_watchdog_s));
  actors::calibrator_config config;
  config.catalog = std::make_shared<const cal::catalog>(std::move(catalog));
  config.host = std::make_shared<cal::toolchain_steps>();
  config.gpu.trial_watchdog = watchdog;
  config.gpu.lock_timeout = request.lock_timeout;
  for (int ordinal : fleet.chosen) {
    actors::gpu_worker_config worker;
    worker.device = fleet.device(ordinal);
    worker.keep_runner = false;
    worker.keeper.runner.executable = fleet.runner;
    worker.keeper.restarts = request.spec.supervision;
    worker.lock_holder = std::string{command_name} + " " +
                         (request.resume_dir ? request.resume_dir->string() : request.spec.run_root.string());
    worker.lock_timeout = request.lock_timeout;
    config.workers.push_back(std::move(worker));
  }
  return config;
}

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
  auto run = start_run(request.spec, request.spec_path, request.resume_dir,
                       calibrator_for(request, std::move(*catalog), *fleet));
  if (!run) {
    std::cerr << command_name << ": " << run.error().message << '\n';
    return run.error().code;
  }
  note_run_directory(run->rec.dir.path()); // for --json
  auto& runtime = *run->rec.runtime;
  record_or_warn(runtime, storage::campaign_state_change{run->campaign_id, vocabulary::campaign_state::running, ""});
  feed::event started;
  started.type = feed::event_type::campaign_started;
  started.detail_json = feed::detail{}.add("kind", "calibrate").add("resume", request.resume_dir.has_value()).json();
  runtime.emit(std::move(started));

  messages::calibration_order order;
  order.options = engine_options(request.spec, run->rec.dir.path(), request.resume_dir.has_value());
  order.campaign_id = run->campaign_id;
  order.jobs = run->jobs;
  watch_for_interrupt();
  auto end = runtime.calibrate(order, [] { return interrupted(); });
  return finish_run(*run, end, fleet->usable());
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
