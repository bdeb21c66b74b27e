// `warpforge bench <problem.toml> [--candidate a.cu ...]`: compile the problem's kernel (the
// baseline) and each candidate, then check and time every one on each chosen GPU through that
// GPU's gpu_worker (GPUs side by side, candidates in order on each), and print a table with the
// per-candidate overhead. Everything is also recorded in a run directory (iteration 1, one branch
// per kernel, one measurement per GPU) and published on the feed.

#include "cli/commands.hpp"

#include "cli/gpu_fleet.hpp"
#include "cli/kernel_build.hpp"
#include "cli/recording.hpp"
#include "cli/text.hpp"
#include "config/defaults.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/runner/race_request.hpp"
#include "logging/logging.hpp"

#include <caf/scoped_actor.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

// A kernel the bench measures: the problem's own (baseline) or a --candidate.
struct bench_kernel {
  std::string label;           // "baseline" or the candidate's file name
  kernel_source source;
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  std::int64_t ordinal = 0;    // branch ordinal in iteration 1
  std::int64_t branch_id = 0;  // its row in the store
};

// One (GPU, kernel) cell of the table.
struct bench_row {
  int gpu = -1;
  std::string gpu_name;
  std::string kernel;
  std::string outcome;
  std::string detail;
  std::optional<messages::timing_stats> stats;
  double compile_s = 0;
  bool cache_hit = false;
  double wall_s = 0; // the worker's whole request: start, load, check, warm-up, timing
};



void print_table(const std::vector<bench_row>& rows, double buffer_bytes) {
  std::map<int, double> baseline_time; // per GPU
  for (const auto& r : rows)
    if (r.kernel == "baseline" && r.stats)
      baseline_time[r.gpu] = r.stats->median_s;
  std::printf("\n%-4s %-20s %-16s %-13s %11s %23s %7s %7s %8s %8s %9s %9s %9s\n", "GPU", "kernel",
              "outcome", "compile", "median", "95% CI of median", "cv", "samples", "GB/s*",
              "speed-up", "request", "check+", "timing+");
  for (const auto& r : rows) {
    char compile[32] = "failed";
    if (r.outcome != "compile_error")
      std::snprintf(compile, sizeof compile, "%s %.1fms", r.cache_hit ? "hit" : "nvrtc",
                    r.compile_s * 1e3);
    if (!r.stats) {
      std::printf("%-4d %-20s %-16s %-13s  %s\n", r.gpu, r.kernel.substr(0, 20).c_str(),
                  r.outcome.c_str(), compile, first_line(r.detail, 160).c_str());
      continue;
    }
    const auto& s = *r.stats;
    const std::string ci = format_time(s.ci95_low_s) + " - " + format_time(s.ci95_high_s);
    const double kernel_s = s.samples * s.mean_s; // the kernel's own run time while timing
    const double check_s = r.wall_s - s.loop_wall_s;
    const double timing_overhead_s = s.loop_wall_s - kernel_s;
    char speedup[16] = "-";
    if (auto b = baseline_time.find(r.gpu); b != baseline_time.end() && s.median_s > 0)
      std::snprintf(speedup, sizeof speedup, "%.2fx", b->second / s.median_s);
    std::printf("%-4d %-20s %-16s %-13s %11s %23s %6.2f%% %7u %8.1f %8s %8.2fs %8.2fs %8.2fs\n",
                r.gpu, r.kernel.substr(0, 20).c_str(), r.outcome.c_str(), compile,
                format_time(s.median_s).c_str(), ci.c_str(), s.cv * 100, s.samples,
                s.median_s > 0 ? buffer_bytes / s.median_s / 1e9 : 0.0, speedup, r.wall_s, check_s,
                timing_overhead_s);
  }
  std::printf("* GB/s counts every buffer once (inputs read, outputs written) over the median time.\n"
              "  request: the worker's whole run of the kernel; check+: runner start, load, fill, "
              "reference,\n  correctness on every seed and warm-up; timing+: timing-loop time "
              "beyond the kernel's own (samples x mean).\n");
}

} // namespace

exit_code bench(const bench_options& options) {
  auto spec = config::load_problem(options.problem_path);
  if (!spec) {
    std::cerr << config::to_string(spec.error()) << '\n';
    return exit_code::bad_input;
  }
  auto resolved = config::resolve_problem(*spec, config::default_point(*spec));
  if (!resolved) {
    std::cerr << config::to_string(resolved.error()) << '\n';
    return exit_code::bad_input;
  }
  if (spec->reference.kind == config::reference_kind::file) {
    std::cerr << "warpforge bench: " << options.problem_path
              << ": a reference from an expected-values file is not supported by the runner yet\n";
    return exit_code::not_available;
  }
  const auto& reference_spec =
    spec->reference.kind == config::reference_kind::kernel ? spec->reference.kernel : spec->kernel;
  auto reference = read_kernel(reference_spec.source, reference_spec.entry, reference_spec.flags);
  if (!reference) {
    std::cerr << "warpforge bench: " << reference.error() << '\n';
    return exit_code::bad_input;
  }
  std::vector<bench_kernel> kernels;
  auto baseline = read_kernel(spec->kernel.source, spec->kernel.entry, spec->kernel.flags);
  if (!baseline) {
    std::cerr << "warpforge bench: " << baseline.error() << '\n';
    return exit_code::bad_input;
  }
  kernels.push_back({"baseline", std::move(*baseline), vocabulary::branch_kind::baseline, 0, 0});
  for (const auto& path : options.candidate_paths) {
    auto candidate = read_kernel(path, spec->kernel.entry, spec->kernel.flags);
    if (!candidate) {
      std::cerr << "warpforge bench: --candidate: " << candidate.error() << '\n';
      return exit_code::bad_input;
    }
    kernels.push_back({fs::path{path}.filename().string(), std::move(*candidate),
                       vocabulary::branch_kind::branch, static_cast<std::int64_t>(kernels.size()), 0});
  }

  auto fleet = discover_gpus(options.gpus);
  if (!fleet) {
    std::cerr << "warpforge bench: " << fleet.error() << '\n';
    return exit_code::usage;
  }

  feed::publisher_options feed_options;
  feed_options.endpoint = "tcp://127.0.0.1:*"; // never collides with a campaign's feed
  auto started = start_recording(options.run_root, "bench-" + spec->name, feed_options, {});
  if (!started) {
    std::cerr << "warpforge bench: " << started.error().message << '\n';
    return started.error().code;
  }
  auto& dir = started->dir;
  auto& runtime = *started->runtime;
  auto campaign_id = runtime.record(messages::campaign_record{"bench-" + spec->name, options.problem_path,
                                                              spec->raw_text, dir.path().string()});
  auto job_id = campaign_id ? runtime.record(messages::job_record{*campaign_id, spec->name, options.problem_path})
                            : campaign_id;
  auto iteration_id = job_id ? runtime.record(messages::iteration_record{*job_id, 1}) : job_id;
  if (!iteration_id) {
    std::cerr << "warpforge bench: cannot record: " << iteration_id.error() << '\n';
    return exit_code::failure;
  }
  for (auto& k : kernels) {
    const auto branch_dir = dir.branch_dir(spec->name, 1, k.ordinal);
    fs::create_directories(branch_dir);
    const auto source_copy = branch_dir / k.source.path.filename();
    fs::copy_file(k.source.path, source_copy, fs::copy_options::overwrite_existing);
    auto id = runtime.record(messages::branch_record{*iteration_id, k.ordinal, k.kind, 0, "[]",
                                                     "{}", fs::relative(source_copy, dir.path()).string()});
    if (!id) {
      std::cerr << "warpforge bench: cannot record: " << id.error() << '\n';
      return exit_code::failure;
    }
    k.branch_id = *id;
  }
  std::cerr << "warpforge bench: " << spec->name << " → " << dir.path().string() << "  (feed "
            << runtime.feed_endpoint() << ")\n";

  auto emit = [&](feed::event_type type, std::int64_t branch, int gpu_ordinal, std::string detail_json) {
    feed::event e;
    e.type = type;
    e.job = spec->name;
    e.iter = 1;
    e.branch = branch;
    e.gpu = gpu_ordinal;
    e.detail_json = std::move(detail_json);
    runtime.emit(std::move(e));
  };

  // Compile every kernel (and the reference) once per architecture in use.
  gpu::cached_compiler compiler{gpu::compile_cache{gpu::default_cache_root()}};
  std::vector<int> targets = fleet->usable() ? fleet->chosen : std::vector<int>{-1};
  auto device_of = [&](int ordinal) { return ordinal < 0 ? nullptr : &fleet->device(ordinal); };
  struct built {
    gpu::compile_result result;
    fs::path cubin;
  };
  std::map<std::pair<std::string, std::int64_t>, built> builds; // (arch, ordinal; -1: reference)
  auto build = [&](const std::string& arch, std::int64_t ordinal, const kernel_source& source) -> built& {
    auto key = std::pair{arch, ordinal};
    if (auto it = builds.find(key); it != builds.end())
      return it->second;
    auto result = compiler.compile(compile_request_for(source, arch, *resolved));
    // The branch's CUBIN in its folder; the reference's beside the iteration's branches.
    const auto folder = ordinal < 0 ? dir.branch_dir(spec->name, 1, 0).parent_path()
                                    : dir.branch_dir(spec->name, 1, ordinal);
    const fs::path cubin = folder / ((ordinal < 0 ? "reference-" : "kernel-") + arch + ".cubin");
    if (result)
      if (auto written = write_cubin(cubin, result->cubin); !written)
        result = unexpected{gpu::compile_failure{gpu::compile_failure_kind::internal, written.error()}};
    return builds.emplace(key, built{std::move(result), cubin}).first->second;
  };

  std::vector<bench_row> rows;
  std::vector<worker_handle> workers;
  if (fleet->usable()) {
    fleet_options fo;
    fo.holder = "warpforge bench " + options.problem_path;
    fo.lock_timeout = options.lock_timeout;
    fo.default_watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(options.watchdog_s));
    workers = spawn_workers(runtime.system(), *fleet, fo);
  }
  {
    caf::scoped_actor self{runtime.system()};
    using response_handle = decltype(self->request(std::declval<messages::gpu_worker_actor>(), caf::infinite,
                                                   std::declval<messages::run_request>()));
    struct awaited {
      std::size_t row;
      const bench_kernel* kernel;
      response_handle response;
    };
    std::vector<awaited> waits;
    for (std::size_t w = 0; w < targets.size(); ++w) {
      const int ordinal = targets[w];
      const auto* device = device_of(ordinal);
      const std::string arch = arch_for(*spec, device);
      auto& built_reference = build(arch, -1, *reference);
      for (const auto& k : kernels) {
        bench_row row;
        row.gpu = ordinal;
        row.gpu_name = device ? device->name : "(no GPU)";
        row.kernel = k.label;
        auto& b = build(arch, k.ordinal, k.source);
        if (b.result) {
          row.compile_s = b.result->compile_s;
          row.cache_hit = b.result->cache_hit;
        }
        if (!b.result || !built_reference.result) {
          const auto& failure = !b.result ? b.result.error() : built_reference.result.error();
          row.outcome = "compile_error";
          row.detail = std::string{!b.result ? "" : "the reference: "} + failure.log;
          emit(feed::event_type::branch_failed, k.ordinal, ordinal,
               feed::detail{}.add("outcome", row.outcome).add("log", failure.log).json());
          runtime.record(messages::branch_outcome_change{k.branch_id, vocabulary::branch_outcome::compile_error,
                                                         first_line(failure.log, 2000)});
          rows.push_back(row);
          continue;
        }
        emit(feed::event_type::branch_compiled, k.ordinal, ordinal,
             feed::detail{}.add("arch", arch).add("cache_hit", b.result->cache_hit)
               .add("compile_s", b.result->compile_s).json());
        if (!device) {
          row.outcome = "not_run";
          row.detail = "compiled for " + arch + "; measurements need a GPU (" + fleet->why_none + ")";
          runtime.record(messages::branch_outcome_change{k.branch_id, vocabulary::branch_outcome::not_run, row.detail});
          rows.push_back(row);
          continue;
        }
        gpu::race_inputs inputs;
        inputs.reference_cubin = built_reference.cubin;
        inputs.reference_entry = reference->entry;
        inputs.seed = config::defaults::seed;
        inputs.mode = options.cold ? vocabulary::timing_mode::cold : vocabulary::timing_mode::warm;
        messages::run_request request;
        request.ref = {"bench-" + spec->name, spec->name, 1, k.ordinal};
        request.kind = k.kind;
        request.request_json = gpu::encode_body(
          gpu::make_single_kernel_race(*resolved, spec->reference, b.cubin, k.source.entry, inputs));
        // Kept beside the branch: `warpforge-runner --execute request.json` replays the launch
        // (under ncu, for instance) with the same CUBINs, arguments and seed.
        std::ofstream{dir.branch_dir(spec->name, 1, k.ordinal) / ("request-" + arch + ".json")}
          << request.request_json << '\n';
        rows.push_back(row);
        const std::size_t row_index = rows.size() - 1;
        // Sent now, so every GPU works while we wait on the first reply.
        waits.push_back({row_index, &k, self->request(workers[w].handle, caf::infinite, std::move(request))});
      }
    }
    for (auto& [row_index, kernel, response] : waits) {
      auto& r = rows[row_index];
      response.receive(
        [&](messages::measurement& m) {
          r.outcome = std::string{vocabulary::to_string(m.outcome)};
          r.detail = m.error_text;
          r.wall_s = m.wall_s;
          if (m.outcome == vocabulary::branch_outcome::passed)
            r.stats = m.timing;
        },
        [&](caf::error& e) {
          r.outcome = "not_run";
          r.detail = runtime.system().render(e);
        });
      const auto outcome =
        vocabulary::from_string<vocabulary::branch_outcome>(r.outcome).value_or(vocabulary::branch_outcome::not_run);
      if (r.stats) {
        const auto& s = *r.stats;
        auto recorded = runtime.record(messages::measurement_record{
          kernel->branch_id, r.gpu, r.gpu_name,
          options.cold ? vocabulary::timing_mode::cold : vocabulary::timing_mode::warm, s.median_s,
          s.mean_s, s.stddev_s, s.cv, s.ci95_low_s, s.ci95_high_s, s.min_s, s.samples, s.sm_clock_mhz});
        if (!recorded)
          std::cerr << "warpforge bench: the measurement was not recorded: " << recorded.error() << '\n';
        emit(feed::event_type::branch_measured, kernel->ordinal, r.gpu,
             feed::detail{}
               .add("gpu_name", r.gpu_name)
               .add("time_s", s.median_s)
               .add("cv", s.cv)
               .add("samples", static_cast<std::uint64_t>(s.samples))
               .add("ci95_low_s", s.ci95_low_s)
               .add("ci95_high_s", s.ci95_high_s)
               .add("mode", options.cold ? "cold" : "warm")
               .add("request_s", r.wall_s)
               .json());
      } else {
        emit(feed::event_type::branch_failed, kernel->ordinal, r.gpu,
             feed::detail{}.add("outcome", r.outcome).add("detail", r.detail).json());
      }
      runtime.record(messages::branch_outcome_change{kernel->branch_id, outcome, r.detail});
    }
  }
  stop_workers(runtime.system(), workers);

  double buffer_bytes = 0;
  for (const auto& arg : resolved->args)
    if (const auto* b = std::get_if<config::resolved_buffer>(&arg))
      buffer_bytes += static_cast<double>(b->bytes);
  print_table(rows, buffer_bytes);

  bool all_passed = true;
  bool compiled = true;
  for (const auto& r : rows) {
    all_passed = all_passed && r.outcome == "passed";
    compiled = compiled && r.outcome != "compile_error";
  }
  std::string reason;
  for (const auto& r : rows)
    if (r.outcome != "passed" && reason.empty())
      reason = r.kernel + " on GPU " + std::to_string(r.gpu) + ": " + r.outcome + ": " + first_line(r.detail, 400);
  runtime.record(messages::job_state_change{*job_id, all_passed ? vocabulary::job_state::finished : vocabulary::job_state::failed,
                                            reason});
  runtime.record(messages::campaign_state_change{
    *campaign_id, all_passed ? vocabulary::campaign_state::finished : vocabulary::campaign_state::failed, reason});
  runtime.stop();
  std::cerr << "recorded in " << dir.path().string() << '\n';
  logging::shutdown();
  if (!fleet->usable() && compiled) {
    std::cerr << "warpforge bench: no usable GPU here (" << fleet->why_none
              << "): the kernels were compiled and checked; measurements need a GPU\n";
    return exit_code::no_gpu;
  }
  return all_passed ? exit_code::ok : exit_code::failure;
}

} // namespace warpforge::cli
