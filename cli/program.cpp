// `warpforge program <file.cu> [--gpus all|0,1] [--trials N] [--watchdog s] [-- args...]`:
// program mode. nvcc builds a whole benchmark program (cached like kernels), which then runs N
// times on each chosen GPU — pinned through CUDA_VISIBLE_DEVICES, under the GPU's lock and a
// watchdog — and its `RESULT: name=value` lines are summarised per GPU (median, 95% CI, CV).
// Every trial's output is kept in the run directory, and the results go to the store and feed.

#include "cli/commands.hpp"

#include "cli/gpu_fleet.hpp"
#include "cli/recording.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "gpu/runner/gpu_lock.hpp"
#include "gpu/runner/program_run.hpp"
#include "logging/logging.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {

// The program's trials on one GPU, under its lock: the table's rows and an event. Whether every
// trial passed.
bool run_on(const program_options& options, const std::string& name, const gpu::device_info& device,
            const fs::path& executable, const fs::path& run_dir, actors::runtime& runtime) {
  const int ordinal = device.ordinal;
  const auto label = device.name.substr(0, 24);
  auto lock = gpu::gpu_lock::acquire(device.uuid, "warpforge program " + options.source_path, gpu::lock_policy::wait,
                                     options.lock_timeout);
  if (!lock) {
    std::printf("%-4d %-24s  %s\n", ordinal, label.c_str(), lock.error().to_string().c_str());
    return false;
  }
  gpu::program_run_options run;
  run.executable = executable;
  run.arguments = options.arguments;
  run.visible_devices = device.uuid;
  run.watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(options.watchdog_s));
  run.trials = options.trials;
  run.output_dir = run_dir / "programs" / ("gpu-" + std::to_string(ordinal));
  auto report = gpu::run_program(run);
  if (!report) {
    std::printf("%-4d %-24s  cannot start: %s\n", ordinal, label.c_str(), report.error().detail.c_str());
    return false;
  }
  const std::string trials = std::to_string(report->passed) + "/" + std::to_string(options.trials);
  for (const auto& trial : report->trials)
    if (trial.outcome != gpu::program_outcome::passed)
      std::printf("%-4d %-24s %-7s %s: %s\n", ordinal, label.c_str(), trials.c_str(),
                  std::string{gpu::to_string(trial.outcome)}.c_str(), trial.detail.c_str());
  feed::detail detail;
  detail.add("gpu_name", device.name).add("trials", options.trials).add("passed", report->passed);
  for (const auto& [result, s] : report->results) {
    char ci[64];
    std::snprintf(ci, sizeof ci, "%.6g - %.6g", s.median_ci.low, s.median_ci.high);
    std::printf("%-4d %-24s %-7s %-20s %14.6g %29s %7.2f%%\n", ordinal, label.c_str(), trials.c_str(), result.c_str(),
                s.median_s, ci, s.cv * 100);
    detail.add(result, s.median_s);
  }
  feed::event e;
  e.type = report->passed > 0 ? feed::event_type::branch_measured : feed::event_type::branch_failed;
  e.job = name;
  e.gpu = ordinal;
  e.detail_json = detail.json();
  runtime.emit(std::move(e));
  return report->passed == options.trials;
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
  auto started = start_recording(options.run_root, "program-" + name, "warpforge program " + options.source_path, {.endpoint = "tcp://127.0.0.1:*"}, {});
  if (!started) {
    std::cerr << "warpforge program: " << started.error().message << '\n';
    return started.error().code;
  }
  auto& dir = started->dir;
  auto& runtime = *started->runtime;
  auto campaign_id = runtime.record(storage::campaign_record{"program-" + name, options.source_path,
                                                              *source, dir.path().string()});
  auto job_id = campaign_id ? runtime.record(storage::job_record{*campaign_id, name, options.source_path})
                            : campaign_id;
  if (!job_id) {
    std::cerr << "warpforge program: cannot record: " << job_id.error() << '\n';
    return exit_code::failure;
  }
  auto finish = [&](vocabulary::campaign_state state, const std::string& reason, exit_code code) {
    runtime.record(storage::job_state_change{*job_id, state == vocabulary::campaign_state::finished
                                                         ? vocabulary::job_state::finished
                                                         : vocabulary::job_state::failed, reason});
    runtime.record(storage::campaign_state_change{*campaign_id, state, reason});
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
  if (!fleet->usable())
    return finish(vocabulary::campaign_state::failed,
                  "compiled; running it needs a GPU (" + fleet->why_none + ")", exit_code::no_gpu);

  bool all_passed = true;
  std::printf("\n%-4s %-24s %-7s %-20s %14s %29s %8s\n", "GPU", "name", "trials", "result", "median",
              "95% CI of median", "cv");
  for (int ordinal : fleet->chosen)
    all_passed = run_on(options, name, fleet->device(ordinal), built->program.executable, dir.path(), runtime) && all_passed;
  return all_passed ? finish(vocabulary::campaign_state::finished, "", exit_code::ok)
                    : finish(vocabulary::campaign_state::failed, "a trial did not pass (see its log)", exit_code::failure);
}

} // namespace warpforge::cli
