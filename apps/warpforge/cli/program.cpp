// `warpforge program <file.cu> [--gpus all|0,1] [--trials N] [--watchdog s] [-- args...]`:
// program mode. nvcc builds a whole benchmark program (cached like kernels), which then runs N
// times on each chosen GPU — pinned through CUDA_VISIBLE_DEVICES, under the GPU's lock and a
// watchdog — and its `RESULT: name=value` lines are summarised per GPU (median, 95% CI, CV).
// Every trial's output is kept in the run directory, and the results go to the store and feed.

#include "apps/warpforge/cli/commands.hpp"

#include "foundation/json/writer.hpp"

#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/recording.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "gpu/runner/gpu_lock.hpp"
#include "gpu/runner/program_run.hpp"
#include "foundation/json/writer.hpp"
#include "foundation/logging/logging.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {

// The program's trials on one GPU: what the table row (or the JSON) shows.
struct gpu_trials {
  gpu::device_info device;
  std::uint32_t trials = 0;
  std::uint32_t passed = 0;
  std::string error;                                    // it could not run at all (lock, spawn)
  std::vector<std::pair<std::string, std::string>> failures; // outcome, detail per failed trial
  std::map<std::string, gpu::sample_stats> results;     // per RESULT name, over the passed trials
  bool all_passed() const { return error.empty() && passed == trials; }
};

// The trials on one GPU, under its lock, and their event.
gpu_trials run_on(const program_options& options, const std::string& name, const gpu::device_info& device,
                  const fs::path& executable, const fs::path& run_dir, actors::runtime& runtime) {
  gpu_trials out{device, options.trials};
  auto lock = gpu::gpu_lock::acquire(device.uuid, "warpforge program " + options.source_path, gpu::lock_policy::wait,
                                     options.lock_timeout);
  if (!lock) {
    out.error = lock.error().to_string();
    return out;
  }
  gpu::program_run_options run;
  run.executable = executable;
  run.arguments = options.arguments;
  run.visible_devices = device.uuid;
  run.watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(options.watchdog_s));
  run.trials = options.trials;
  run.output_dir = run_dir / "programs" / ("gpu-" + std::to_string(device.ordinal));
  auto report = gpu::run_program(run);
  if (!report) {
    out.error = "cannot start: " + report.error().detail;
    return out;
  }
  out.passed = report->passed;
  out.results = report->results;
  for (const auto& trial : report->trials)
    if (trial.outcome != gpu::program_outcome::passed)
      out.failures.emplace_back(gpu::to_string(trial.outcome), trial.detail);
  feed::detail detail;
  detail.add("gpu_name", device.name).add("trials", options.trials).add("passed", report->passed);
  for (const auto& [result, stats] : report->results)
    detail.add(result, stats.median_s);
  feed::event e;
  e.type = report->passed > 0 ? feed::event_type::branch_measured : feed::event_type::branch_failed;
  e.job = name;
  e.gpu = device.ordinal;
  e.detail_json = detail.json();
  runtime.emit(std::move(e));
  return out;
}

void print_table(const std::vector<gpu_trials>& gpus) {
  std::printf("\n%-4s %-24s %-7s %-20s %14s %29s %8s\n", "GPU", "name", "trials", "result", "median",
              "95% CI of median", "cv");
  for (const auto& g : gpus) {
    const auto label = g.device.name.substr(0, 24);
    if (!g.error.empty()) {
      std::printf("%-4d %-24s  %s\n", g.device.ordinal, label.c_str(), g.error.c_str());
      continue;
    }
    const std::string trials = std::to_string(g.passed) + "/" + std::to_string(g.trials);
    for (const auto& [outcome, detail] : g.failures)
      std::printf("%-4d %-24s %-7s %s: %s\n", g.device.ordinal, label.c_str(), trials.c_str(), outcome.c_str(),
                  detail.c_str());
    for (const auto& [result, stats] : g.results) {
      char ci[64];
      std::snprintf(ci, sizeof ci, "%.6g - %.6g", stats.median_ci.low, stats.median_ci.high);
      std::printf("%-4d %-24s %-7s %-20s %14.6g %29s %7.2f%%\n", g.device.ordinal, label.c_str(), trials.c_str(),
                  result.c_str(), stats.median_s, ci, stats.cv * 100);
    }
  }
}

// The same as one JSON object (--json); values keep the program's own units.
void print_json(const program_options& options, const fs::path& run_dir, const std::vector<gpu_trials>& gpus,
                const std::string& no_gpu) {
  json::writer w;
  w.begin_object().key("program").value(options.source_path).key("run_dir").value(run_dir.string());
  w.key("gpus").begin_array();
  for (const auto& g : gpus) {
    w.begin_object().key("gpu").value(g.device.ordinal).key("name").value(g.device.name).key("trials").value(g.trials)
      .key("passed").value(g.passed).key("error").value(g.error);
    w.key("failures").begin_array();
    for (const auto& [outcome, detail] : g.failures)
      w.begin_object().key("outcome").value(outcome).key("detail").value(detail).end_object();
    w.end_array().key("results").begin_object();
    for (const auto& [result, stats] : g.results)
      w.key(result).begin_object().key("median").value(stats.median_s).key("ci95_low").value(stats.median_ci.low)
        .key("ci95_high").value(stats.median_ci.high).key("cv").value(stats.cv).end_object();
    w.end_object().end_object();
  }
  w.end_array();
  if (!no_gpu.empty())
    w.key("no_gpu").value(no_gpu);
  w.end_object();
  std::cout << std::move(w).str() << '\n';
}

struct built_program {
  gpu::compiled_program program;
  std::string arch;
};
struct build_failure {
  std::string reason;
  std::string log; // the compiler's
};

// nvcc through the content cache, for --arch or the first chosen GPU's architecture.
expected<built_program, build_failure> build(const program_options& options, const std::string& source,
                                             const gpu_fleet& fleet) {
  auto compiler = gpu::program_compiler::from_toolchain(gpu::compile_cache{gpu::default_cache_root()});
  if (!compiler)
    return unexpected{build_failure{"nvcc is needed for program mode: " + compiler.error().log, ""}};
  gpu::compile_request request;
  request.source = source;
  request.source_name = fs::path{options.source_path}.filename().string();
  request.arch = !options.arch.empty() ? options.arch
                 : fleet.usable()      ? fleet.device(fleet.chosen.front()).arch()
                                       : std::string{gpu::fallback_arch};
  auto built = compiler->compile(request);
  if (!built)
    return unexpected{build_failure{"the program does not compile (" + request.arch + ")", built.error().log}};
  return built_program{std::move(*built), request.arch};
}

// The program's campaign and job rows: (campaign id, job id).
expected<std::pair<std::int64_t, std::int64_t>, std::string> record_program(actors::runtime& runtime,
                                                                            const std::string& name,
                                                                            const std::string& source_path,
                                                                            const std::string& source,
                                                                            const fs::path& run_dir) {
  auto campaign_id = runtime.record(storage::campaign_record{"program-" + name, source_path, source, run_dir.string()});
  if (!campaign_id)
    return unexpected{campaign_id.error()};
  auto job_id = runtime.record(storage::job_record{*campaign_id, name, source_path});
  if (!job_id)
    return unexpected{job_id.error()};
  return std::pair{*campaign_id, *job_id};
}

std::optional<std::string> read_source(const std::string& path) {
  std::ifstream in{path};
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

exit_code program(const program_options& options) {
  const auto source = read_source(options.source_path);
  if (!source) {
    std::cerr << "warpforge program: cannot read " << options.source_path << '\n';
    return exit_code::bad_input;
  }
  auto fleet = discover_gpus(options.gpus);
  if (!fleet) {
    std::cerr << "warpforge program: --gpus: " << fleet.error() << '\n';
    return exit_code::usage;
  }
  const auto name = fs::path{options.source_path}.stem().string();
  auto started = start_recording(options.run_root, 0700, "program-" + name, "warpforge program " + options.source_path, {.endpoint = "tcp://127.0.0.1:*"}, {});
  if (!started) {
    std::cerr << "warpforge program: " << started.error().message << '\n';
    return started.error().code;
  }
  auto& dir = started->dir;
  auto& runtime = *started->runtime;
  auto ids = record_program(runtime, name, options.source_path, *source, dir.path());
  if (!ids) {
    std::cerr << "warpforge program: cannot record: " << ids.error() << '\n';
    return exit_code::failure;
  }
  const auto [campaign_id, job_id] = *ids;
  auto finish = [&](vocabulary::campaign_state state, const std::string& reason, exit_code code) {
    runtime.record(storage::job_state_change{job_id, state == vocabulary::campaign_state::finished
                                                         ? vocabulary::job_state::finished
                                                         : vocabulary::job_state::failed, reason});
    runtime.record(storage::campaign_state_change{campaign_id, state, reason});
    runtime.stop();
    if (!reason.empty())
      std::cerr << "warpforge program: " << reason << '\n';
    std::cerr << "recorded in " << dir.path().string() << '\n';
    logging::shutdown();
    return code;
  };

  auto built = build(options, *source, *fleet);
  if (!built) {
    if (!built.error().log.empty())
      std::cerr << built.error().log << '\n';
    return finish(vocabulary::campaign_state::failed, built.error().reason, exit_code::failure);
  }
  const auto& request_arch = built->arch;
  std::cerr << "warpforge program: built for " << request_arch << (built->program.cache_hit ? " (cached)" : "") << '\n';
  if (!fleet->usable()) {
    if (options.json)
      print_json(options, dir.path(), {}, fleet->why_none);
    return finish(vocabulary::campaign_state::failed,
                  "compiled; running it needs a GPU (" + fleet->why_none + ")", exit_code::no_gpu);
  }
  std::vector<gpu_trials> gpus;
  for (int ordinal : fleet->chosen)
    gpus.push_back(run_on(options, name, fleet->device(ordinal), built->program.executable, dir.path(), runtime));
  options.json ? print_json(options, dir.path(), gpus, "") : print_table(gpus);
  const bool all_passed = std::all_of(gpus.begin(), gpus.end(), [](const gpu_trials& g) { return g.all_passed(); });
  return all_passed ? finish(vocabulary::campaign_state::finished, "", exit_code::ok)
                    : finish(vocabulary::campaign_state::failed, "a trial did not pass (see its log)", exit_code::failure);
}

} // namespace warpforge::cli
