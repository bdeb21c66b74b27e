#include "apps/warpforge/cli/pipeline_session.hpp"

#include "apps/warpforge/cli/command_output.hpp"
#include "apps/warpforge/cli/llm_model.hpp"

#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/interrupt.hpp"
#include "feed/progress_display.hpp"
#include "feed/publisher.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "foundation/logging/logging.hpp"
#include "sass/listing_memo.hpp"
#include "tuning/result_cache.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <thread>

namespace warpforge::cli {

namespace {

// NVRTC through the host's content cache, shared by every compiler actor (it is thread-safe). The
// disassembler's listings are kept beside it, so a cache-hit build runs no nvdisasm either.
pipeline::compile_function cached_nvrtc() {
  const auto root = gpu::default_cache_root();
  sass::listing_memo::of_process().keep_on_disk(root / "sass");
  auto compiler = std::make_shared<gpu::cached_compiler>(gpu::compile_cache{root});
  return [compiler](const gpu::compile_request& r) { return compiler->compile(r); };
}

actors::pipeline_options pipeline_for(const session_request& request, const gpu_fleet& fleet) {
  actors::pipeline_options p;
  for (int ordinal : fleet.chosen) {
    actors::gpu_worker_config worker;
    worker.device = fleet.device(ordinal);
    worker.keeper.runner.executable = fleet.runner;
    // Opened while the campaign's first kernels compile: what the campaign will use.
    worker.keeper.runner.warm_up = pipeline::runner_warm_up(request.mode, request.spec);
    worker.keeper.restarts = request.spec.supervision;
    worker.lock_holder = "warpforge " + request.verb + " " + request.spec_path;
    worker.lock_timeout = request.lock_timeout;
    if (request.watchdog)
      worker.default_watchdog = *request.watchdog;
    p.workers.push_back(std::move(worker));
  }
  p.compilers = std::max(1u, std::thread::hardware_concurrency());
  p.compile = cached_nvrtc();
  p.proposer = request.spec.proposer;
  p.problems = pipeline::problems_of(request.spec); // loaded once, here: no actor reads them again
  p.llm = request.spec.llm;
  p.spec = std::make_shared<const config::campaign_spec>(request.spec);
  if (request.mode == pipeline::campaign_mode::optimize)
    p.scheduler.tuner_cache = tuning::default_cache_path();
  return p;
}

// An llm campaign's model, made before anything is created: a wrong [llm] setting is said at once.
expected<void, recording_failure> attach_model(const session_request& request, actors::pipeline_options& pipeline) {
  const auto& spec = request.spec;
  if (spec.proposer.kind != config::proposer_kind::llm || !spec.llm)
    return {};
  auto model = model_for(*spec.llm);
  if (!model)
    return unexpected{recording_failure{exit_code::bad_input,
                                        request.spec_path + ": " + model.error() + "; nothing was created"}};
  pipeline.model = std::move(*model);
  return {};
}

// The feed's endpoint tried before a run directory is made: one another campaign holds is said at
// once (the feed actor would otherwise be restarted on it until the supervisor gives up).
expected<void, recording_failure> check_feed_endpoint(const feed::publisher_options& feed) {
  auto probe = feed::publisher::bind(feed); // closed again at once: its context ends with it
  if (probe)
    return {};
  const auto& e = probe.error();
  if (e.code == feed::feed_errc::address_in_use)
    return unexpected{recording_failure{
      exit_code::failure, "the feed cannot bind " + feed.endpoint + ": address in use (another campaign?); set [feed] "
                          "endpoint = \"tcp://127.0.0.1:*\" for a free port; nothing was created"}};
  return unexpected{recording_failure{exit_code::bad_input,
                                      "[feed] endpoint: " + feed::to_string(e) + "; nothing was created"}};
}

// The campaign the campaign actor is handed: the spec as validated, where it records, its GPUs.
messages::campaign_plan plan_for(const session_request& request, const gpu_fleet& fleet,
                                 const std::filesystem::path& dir) {
  messages::campaign_plan plan;
  plan.name = request.spec.name;
  plan.spec_path = request.spec_path;
  plan.spec_toml = request.spec.raw_text;
  plan.run_dir = dir.string();
  plan.mode = request.mode;
  plan.candidate_paths = request.candidates;
  plan.timing = request.timing;
  for (int ordinal : fleet.chosen)
    plan.gpus.push_back(fleet.device(ordinal));
  plan.why_no_gpu = fleet.why_none;
  plan.resume = request.resume_dir.has_value();
  return plan;
}

} // namespace

expected<session_outcome, recording_failure> run_session(const session_request& request) {
  const auto& spec = request.spec;
  // With hosts, the GPUs are theirs (docs/hosts.md): this machine's are not asked.
  std::optional<remote_hosts> hosts;
  if (request.hosts) {
    auto prepared = remote_hosts::prepare(*request.hosts);
    if (!prepared)
      return unexpected{recording_failure{exit_code::bad_input, prepared.error() + "; nothing was created"}};
    hosts = std::move(*prepared);
  }
  auto fleet = hosts ? expected<gpu_fleet, std::string>{gpu_fleet{}} : discover_gpus(request.gpus);
  if (!fleet)
    return unexpected{recording_failure{request.gpus_origin == "--gpus" ? exit_code::usage : exit_code::bad_input,
                                        request.gpus_origin + ": " + fleet.error() + "; nothing was created"}};
  feed::publisher_options feed;
  feed.endpoint = request.feed_endpoint.empty() ? spec.feed.endpoint : request.feed_endpoint;
  feed.allow_remote = spec.feed.allow_remote;
  feed.high_water_mark = static_cast<int>(spec.feed.high_water_mark);
  if (auto usable = check_feed_endpoint(feed); !usable)
    return unexpected{usable.error()};
  auto pipeline = pipeline_for(request, *fleet);
  if (hosts)
    hosts->configure(pipeline);
  if (auto attached = attach_model(request, pipeline); !attached)
    return unexpected{attached.error()};
  const auto command = "warpforge " + request.verb + " " +
                       (request.resume_dir ? request.resume_dir->string() : request.spec_path);
  auto started = request.resume_dir
                   ? resume_recording(*request.resume_dir, spec.name, command, feed, spec.supervision, std::move(pipeline))
                   : start_recording(spec.run_root, spec.run_dir_mode, spec.name, command, feed, spec.supervision,
                                     std::move(pipeline));
  if (!started)
    return unexpected{started.error()};
  auto& runtime = *started->runtime;
  const auto dir = started->dir.path();
  watch_for_interrupt();
  note_run_directory(dir); // for --json
  std::vector<gpu::device_info> remote_gpus;
  if (hosts) {
    auto offered = hosts->start(runtime.system(), dir);
    if (!offered) {
      hosts->stop();
      runtime.stop();
      return unexpected{recording_failure{exit_code::failure, offered.error() + "\n  recorded in " + dir.string() +
                                                              " (resumable: warpforge resume " + dir.string() + ")"}};
    }
    remote_gpus = std::move(*offered);
  }
  if (!quiet_mode())
    std::cerr << "warpforge " << request.verb << ": " << spec.name << " → " << dir.string()
              << "\n  feed: " << runtime.feed_endpoint() << "   (watch: warpforge tail " << dir.string() << ")\n";
  if (request.wait_subscribers_s > 0 &&
      !runtime.wait_for_subscribers(1, std::chrono::duration<double>(request.wait_subscribers_s)))
    logging::get("campaign")->warn("no feed subscriber within {} s; going on (late monitors replay from the store)",
                                   request.wait_subscribers_s);
  // After the wait above: the progress's own subscription must not count as a monitor's. Without
  // a GPU it stays quiet: each job would only fail with the same reason, which the command says
  // once at the end (apps/warpforge/cli/gpu_fleet.hpp, say_no_gpu).
  auto progress = feed::start_progress(runtime.feed_endpoint(),
                                       {.quiet = request.quiet || quiet_mode() || (!fleet->usable() && !hosts), .wall_budget_s = spec.budget.wall_time_s, .run_dir = dir});

  session_outcome outcome;
  outcome.run_dir = dir;
  outcome.why_no_gpu = fleet->why_none;
  auto plan = plan_for(request, *fleet, dir);
  if (hosts) {
    plan.gpus = remote_gpus;
    plan.why_no_gpu.clear();
    outcome.why_no_gpu.clear();
  }
  outcome.gpus = plan.gpus;
  bool stop_said = false;
  auto result = runtime.run(plan, [&] {
    if (interrupted() && !stop_said) {
      std::cerr << "\nwarpforge: stopping (in-flight work is recorded interrupted; `warpforge resume` continues)\n";
      stop_said = true;
    }
    return interrupted();
  });
  if (hosts)
    hosts->stop();
  runtime.stop();
  progress.stop(); // the final block stays above what the command prints next
  if (!result)
    return unexpected{recording_failure{exit_code::failure, "the supervisor gave up: " + result.error() +
                                                              "\n  recorded in " + dir.string() +
                                                              " (resumable: warpforge resume " + dir.string() + ")"}};
  outcome.result = std::move(*result);
  return outcome;
}

} // namespace warpforge::cli
