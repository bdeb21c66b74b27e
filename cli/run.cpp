// `warpforge run <campaign.toml>` and `warpforge resume <run-dir>`: validate the campaign (and
// every problem it names) up front, create (or reopen) the run directory, boot the actors, one
// gpu_worker per chosen GPU and the scheduler, and wait for the campaign's end while watching for
// Ctrl-C. Afterwards summary.md and its charts are written into the run directory.
//
// Without a GPU the scheduler compiles and SASS-checks each job's baseline and first proposal and
// the command says plainly that measurements need a GPU (exit 5): no number is invented.

#include "cli/commands.hpp"

#include "actors/scheduler.hpp"
#include "cli/gpu_fleet.hpp"
#include "cli/interrupt.hpp"
#include "cli/recording.hpp"
#include "config/campaign_spec.hpp"
#include "logging/logging.hpp"
#include "report/campaign_report.hpp"

#include <caf/scoped_actor.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

/// How often the wait for the campaign's end looks at the interrupt flag.
constexpr std::chrono::milliseconds interrupt_poll{200};

feed::event campaign_event(feed::event_type type, std::string detail_json = "{}") {
  feed::event e;
  e.type = type;
  e.detail_json = std::move(detail_json);
  return e;
}

std::string gpus_option(const config::gpu_selection& selection) {
  if (selection.kind == config::gpu_selection_kind::all)
    return "all";
  std::string text;
  for (auto ordinal : selection.ordinals)
    text += (text.empty() ? "" : ",") + std::to_string(ordinal);
  return text;
}

struct campaign_start {
  config::campaign_spec spec;
  std::string spec_path;
  std::optional<fs::path> resume_dir;
  std::string log_level;
  double wait_subscribers_s = 0;
};

// What run and resume share once the spec is known: everything from the run directory on.
exit_code run_campaign(campaign_start start) {
  auto& spec = start.spec;
  auto level_text = start.log_level.empty() ? std::string{config::to_string(spec.log)} : start.log_level;
  auto level = logging::level_from_string(level_text);
  if (!level) {
    std::cerr << "warpforge run: --log-level " << level_text << ": expected trace, debug, info, warn or error\n";
    return exit_code::usage;
  }
  logging::set_level(*level);
  auto log = logging::get("campaign");

  std::optional<report::campaign_report> earlier;
  if (start.resume_dir) {
    auto loaded = report::load_report(*start.resume_dir);
    if (!loaded) {
      std::cerr << "warpforge resume: " << loaded.error() << '\n';
      return exit_code::bad_input;
    }
    if (loaded->campaign.state == vocabulary::campaign_state::finished) {
      std::cerr << "warpforge resume: " << start.resume_dir->string()
                << ": the campaign finished; nothing to resume (see: warpforge report)\n";
      return exit_code::ok;
    }
    earlier = std::move(*loaded);
  }

  feed::publisher_options feed_options;
  feed_options.endpoint = spec.feed.endpoint;
  feed_options.allow_remote = spec.feed.allow_remote;
  feed_options.high_water_mark = static_cast<int>(spec.feed.high_water_mark);
  auto started = start.resume_dir
                   ? resume_recording(*start.resume_dir, spec.name, feed_options, spec.supervision)
                   : start_recording(spec.run_root, spec.name, feed_options, spec.supervision);
  if (!started) {
    std::cerr << "warpforge run: " << started.error().message << '\n';
    return started.error().code;
  }
  const auto& dir = started->dir;
  auto& runtime = *started->runtime;
  watch_for_interrupt();
  std::cerr << "warpforge " << (earlier ? "resume" : "run") << ": " << spec.name << " → "
            << dir.path().string() << "\n  feed: " << runtime.feed_endpoint()
            << "   (watch: warpforge tail --run-dir " << dir.path().string() << ")\n";
  if (start.wait_subscribers_s > 0 &&
      !runtime.wait_for_subscribers(1, std::chrono::duration<double>(start.wait_subscribers_s)))
    log->warn("no feed subscriber within {} s; going on (late monitors replay from the store)",
              start.wait_subscribers_s);

  // The campaign and its jobs: new rows, or the earlier run's.
  actors::scheduler_config config;
  config.spec = spec;
  config.run_dir = dir.path();
  if (earlier) {
    config.campaign_id = earlier->campaign.id;
    for (const auto& job : spec.jobs) {
      std::int64_t id = 0;
      for (const auto& stored : earlier->jobs)
        if (stored.row.name == job.name)
          id = stored.row.id;
      if (id == 0) {
        auto added = runtime.record(messages::job_record{config.campaign_id, job.name, job.problem_path.string()});
        if (!added) {
          std::cerr << "warpforge resume: cannot record job " << job.name << ": " << added.error() << '\n';
          return exit_code::failure;
        }
        id = *added;
      }
      config.job_ids.push_back(id);
    }
    config.resume_from = std::move(earlier);
  } else {
    auto campaign_id = runtime.record(messages::campaign_record{spec.name, start.spec_path, spec.raw_text,
                                                                dir.path().string()});
    if (!campaign_id) {
      std::cerr << "warpforge run: cannot record the campaign: " << campaign_id.error() << '\n';
      return exit_code::failure;
    }
    config.campaign_id = *campaign_id;
    for (const auto& job : spec.jobs) {
      auto job_id = runtime.record(messages::job_record{*campaign_id, job.name, job.problem_path.string()});
      if (!job_id) {
        std::cerr << "warpforge run: cannot record job " << job.name << ": " << job_id.error() << '\n';
        return exit_code::failure;
      }
      config.job_ids.push_back(*job_id);
    }
  }
  runtime.record(messages::campaign_state_change{config.campaign_id, vocabulary::campaign_state::running, {}});
  runtime.emit(campaign_event(feed::event_type::campaign_started,
                              feed::detail{}.add("resumed", config.resume_from.has_value()).json()));

  // The GPUs, one worker each.
  auto fleet = discover_gpus(gpus_option(spec.gpus));
  if (!fleet) {
    std::cerr << "warpforge run: " << fleet.error() << '\n';
    runtime.record(messages::campaign_state_change{config.campaign_id, vocabulary::campaign_state::failed, fleet.error()});
    return exit_code::usage;
  }
  std::vector<worker_handle> workers;
  if (fleet->usable()) {
    fleet_options fo;
    fo.holder = "warpforge run " + start.spec_path;
    fo.restarts = spec.supervision;
    workers = spawn_workers(runtime.system(), *fleet, fo);
    for (const auto& w : workers)
      config.workers.push_back({w.ordinal, fleet->device(w.ordinal).name, fleet->device(w.ordinal).arch(), w.handle,
                                diagnosis::describe_gpu(diagnosis::builtin_gpu_table(),
                                                        properties_of(fleet->device(w.ordinal)))
                                  .peak_dram_bandwidth()});
  } else {
    config.why_no_gpu = fleet->why_none;
  }

  messages::campaign_result result;
  {
    caf::scoped_actor self{runtime.system()};
    config.owner = caf::actor_cast<caf::actor>(self);
    auto scheduler = runtime.system().spawn<caf::detached>(actors::scheduler, std::move(config));
    bool ended = false;
    bool stop_sent = false;
    while (!ended) {
      self->receive([&](messages::campaign_result& r) { result = std::move(r); ended = true; },
                    caf::after(interrupt_poll) >> [&] {
                      if (interrupted() && !stop_sent) {
                        std::cerr << "\nwarpforge: stopping (in-flight work is recorded interrupted; "
                                     "`warpforge resume` continues)\n";
                        self->send(scheduler, messages::stop_atom::value);
                        stop_sent = true;
                      }
                    });
    }
  }
  stop_workers(runtime.system(), workers);

  const auto state = result.kind == messages::campaign_result_kind::finished    ? vocabulary::campaign_state::finished
                     : result.kind == messages::campaign_result_kind::interrupted ? vocabulary::campaign_state::interrupted
                                                                                  : vocabulary::campaign_state::failed;
  runtime.record(messages::campaign_state_change{config.campaign_id, state, result.reason});
  const auto type = state == vocabulary::campaign_state::finished    ? feed::event_type::campaign_finished
                    : state == vocabulary::campaign_state::interrupted ? feed::event_type::campaign_interrupted
                                                                    : feed::event_type::campaign_failed;
  runtime.emit(campaign_event(type, feed::detail{}
                                      .add("reason", result.reason)
                                      .add("wall_s", result.wall_s)
                                      .add("gpu_busy_fraction", result.gpu_busy_fraction)
                                      .add("measured", result.measured)
                                      .add("compiled", result.compiled)
                                      .json()));
  runtime.stop();

  // The report, from what the store now holds.
  if (auto report = report::load_report(dir.path())) {
    if (auto written = report::write_summary(*report); !written)
      log->warn("summary not written: {}", written.error());
    // The headline section of summary.md on stdout.
    const auto md = report::render_markdown(*report);
    const auto head = md.find("## Headline");
    if (head != std::string::npos)
      std::cout << md.substr(head, md.find("\n## ", head + 1) - head) << '\n';
  }
  std::fprintf(stderr,
               "warpforge: %s in %.1f s: %llu candidates compiled, %llu measured; GPU busy %.0f%% of the "
               "time over %zu GPU(s)\n  recorded in %s (summary.md, warpforge report)\n",
               std::string{vocabulary::to_string(state)}.c_str(), result.wall_s,
               static_cast<unsigned long long>(result.compiled), static_cast<unsigned long long>(result.measured),
               result.gpu_busy_fraction * 100, workers.empty() ? fleet->chosen.size() : workers.size(),
               dir.path().string().c_str());
  if (!result.reason.empty())
    std::cerr << "  " << result.reason << '\n';
  logging::shutdown();
  if (state == vocabulary::campaign_state::interrupted)
    return exit_code::interrupted;
  if (!fleet->usable())
    return exit_code::no_gpu;
  return state == vocabulary::campaign_state::finished ? exit_code::ok : exit_code::failure;
}

} // namespace

exit_code run(const run_options& options) {
  auto spec = config::load_campaign(options.campaign_path);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << toml_reader::to_string(error) << '\n';
    std::cerr << "warpforge run: " << options.campaign_path << ": " << spec.error().size()
              << " error(s); nothing was started\n";
    return exit_code::bad_input;
  }
  return run_campaign({std::move(*spec), options.campaign_path, std::nullopt, options.log_level,
                       options.wait_subscribers_s});
}

exit_code resume(const resume_options& options) {
  auto earlier = report::load_report(options.run_dir);
  if (!earlier) {
    std::cerr << "warpforge resume: " << earlier.error() << '\n';
    return exit_code::bad_input;
  }
  // The spec as it was validated then, read again (its problem files must still be there).
  auto spec = config::parse_campaign(earlier->campaign.spec_toml, earlier->campaign.spec_path);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << toml_reader::to_string(error) << '\n';
    std::cerr << "warpforge resume: the campaign spec recorded in " << options.run_dir
              << " no longer validates; nothing was started\n";
    return exit_code::bad_input;
  }
  return run_campaign({std::move(*spec), earlier->campaign.spec_path, fs::path{options.run_dir},
                       options.log_level, 0});
}

} // namespace warpforge::cli
