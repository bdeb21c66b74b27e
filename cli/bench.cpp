// `warpforge bench <problem.toml>`: compile the kernel (or --candidate), check it against the
// problem's reference and time it on each chosen GPU, print a table; every step is also an
// event on the feed and in a run directory's store. GPUs are measured one after another here;
// the gpu_worker actors of the optimize pipeline will run them side by side.

#include "cli/commands.hpp"

#include "cli/recording.hpp"
#include "config/defaults.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/runner/candidate_request.hpp"
#include "gpu/runner/gpu_lock.hpp"
#include "gpu/runner/runner_client.hpp"
#include "logging/logging.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

// The architecture to compile for when no GPU says which.
constexpr std::string_view fallback_arch = "sm_90";

std::optional<std::string> read_text(const fs::path& file) {
  std::ifstream in{file};
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "-DNAME=value" (config's form) → the compiler's define.
gpu::macro_define to_define(const std::string& flag) {
  const auto body = flag.rfind("-D", 0) == 0 ? flag.substr(2) : flag;
  const auto eq = body.find('=');
  if (eq == std::string::npos)
    return {body, ""};
  return {body.substr(0, eq), body.substr(eq + 1)};
}

struct kernel_source {
  fs::path path;
  std::string entry;
  std::vector<std::string> flags;
};

gpu::compile_request compile_request_for(const kernel_source& k, const std::string& text,
                                         const std::string& arch,
                                         const config::resolved_problem& resolved) {
  gpu::compile_request r;
  r.source = text;
  r.source_name = k.path.filename().string();
  r.entry = k.entry;
  r.arch = arch;
  for (const auto& d : resolved.defines)
    r.defines.push_back(to_define(d));
  r.extra_flags = k.flags;
  return r;
}

// Which ordinals --gpus names: "all", or a comma list checked against the host's devices.
expected<std::vector<int>, std::string> choose_gpus(const std::string& text, int device_count) {
  std::vector<int> chosen;
  if (text == "all") {
    for (int i = 0; i < device_count; ++i)
      chosen.push_back(i);
    return chosen;
  }
  std::istringstream items{text};
  for (std::string item; std::getline(items, item, ',');) {
    char* end = nullptr;
    const long ordinal = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || ordinal < 0 || ordinal >= device_count)
      return unexpected{"--gpus: '" + item + "' is not a GPU of this host (it has " +
                        std::to_string(device_count) + ")"};
    chosen.push_back(static_cast<int>(ordinal));
  }
  return chosen;
}

std::string format_time(double seconds) {
  char buffer[32];
  if (seconds < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.2f us", seconds * 1e6);
  else
    std::snprintf(buffer, sizeof buffer, "%.4f ms", seconds * 1e3);
  return buffer;
}

struct bench_row {
  int gpu = -1;
  std::string gpu_name;
  std::string outcome;  // branch_outcome text
  std::string detail;
  std::optional<gpu::sample_stats> stats;
  double bytes = 0;     // every buffer once, bytes
};

void print_table(const std::vector<bench_row>& rows) {
  std::printf("\n%-4s %-24s %-14s %12s %25s %8s %8s %12s %10s\n", "GPU", "name", "outcome", "median",
              "95% CI of median", "cv", "samples", "min", "GB/s*");
  for (const auto& r : rows) {
    if (r.stats) {
      const auto& s = *r.stats;
      const std::string ci = format_time(s.median_ci.low) + " - " + format_time(s.median_ci.high);
      std::printf("%-4d %-24s %-14s %12s %25s %7.2f%% %8zu %12s %10.1f\n", r.gpu,
                  r.gpu_name.substr(0, 24).c_str(), r.outcome.c_str(), format_time(s.median_s).c_str(),
                  ci.c_str(), s.cv * 100, s.count, format_time(s.min_s).c_str(),
                  s.median_s > 0 ? r.bytes / s.median_s / 1e9 : 0.0);
    } else {
      std::printf("%-4d %-24s %-14s  %s\n", r.gpu, r.gpu_name.substr(0, 24).c_str(), r.outcome.c_str(),
                  r.detail.c_str());
    }
  }
  std::printf("* GB/s counts every buffer once (inputs read, outputs written) over the median time.\n");
}

} // namespace

exit_code bench(const bench_options& options) {
  auto log = logging::get("bench");
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
  kernel_source candidate{spec->kernel.source, spec->kernel.entry, spec->kernel.flags};
  if (!options.candidate_path.empty())
    candidate.path = options.candidate_path;
  kernel_source reference{spec->kernel.source, spec->kernel.entry, spec->kernel.flags};
  if (spec->reference.kind == config::reference_kind::kernel)
    reference = {spec->reference.kernel.source, spec->reference.kernel.entry, spec->reference.kernel.flags};
  else if (spec->reference.kind == config::reference_kind::file) {
    std::cerr << "warpforge bench: " << options.problem_path
              << ": a reference from an expected-values file is not supported by the runner yet\n";
    return exit_code::not_available;
  }
  auto candidate_text = read_text(candidate.path);
  auto reference_text = read_text(reference.path);
  if (!candidate_text || !reference_text) {
    std::cerr << "warpforge bench: cannot read " << (candidate_text ? reference.path : candidate.path).string() << '\n';
    return exit_code::bad_input;
  }

  // Which GPUs: one unpinned runner answers for the host.
  auto runner_path = gpu::locate_runner();
  if (!runner_path) {
    std::cerr << "warpforge bench: " << runner_path.error().to_string() << '\n';
    return exit_code::failure;
  }
  std::optional<gpu::host_report> host;
  gpu::runner_options probe_options;
  probe_options.executable = *runner_path;
  if (auto probe = gpu::runner_client::start(probe_options); probe)
    if (auto report = probe->device_query(); report)
      host = std::move(*report);
  const bool have_gpu = host && host->status == gpu::gpu_status::ok && !host->devices.empty();
  std::vector<int> gpus;
  if (have_gpu) {
    auto chosen = choose_gpus(options.gpus, static_cast<int>(host->devices.size()));
    if (!chosen) {
      std::cerr << "warpforge bench: " << chosen.error() << '\n';
      return exit_code::usage;
    }
    gpus = *chosen;
  }

  feed::publisher_options feed_options;
  feed_options.endpoint = "tcp://127.0.0.1:*"; // never collides with a campaign's feed
  auto started = start_recording(options.run_root, "bench-" + spec->name, feed_options, {});
  if (!started) {
    std::cerr << "warpforge bench: " << started.error().message << '\n';
    return started.error().code;
  }
  auto* dir = &started->dir;
  auto& runtime = *started->runtime;
  auto campaign_id = runtime.record(messages::campaign_record{"bench-" + spec->name, options.problem_path,
                                                              spec->raw_text, dir->path().string()});
  auto job_id = campaign_id ? runtime.record(messages::job_record{*campaign_id, spec->name, options.problem_path})
                            : campaign_id;
  if (!job_id) {
    std::cerr << "warpforge bench: cannot record: " << job_id.error() << '\n';
    return exit_code::failure;
  }
  std::cerr << "warpforge bench: " << spec->name << " → " << dir->path().string() << "  (feed "
            << runtime.feed_endpoint() << ")\n";

  gpu::cached_compiler compiler{gpu::compile_cache{gpu::default_cache_root()}};
  auto emit = [&](feed::event_type type, int gpu_ordinal, std::string detail_json) {
    feed::event e;
    e.type = type;
    e.job = spec->name;
    e.iter = 0;
    e.branch = 0;
    e.gpu = gpu_ordinal;
    e.detail_json = std::move(detail_json);
    runtime.emit(std::move(e));
  };

  double buffer_bytes = 0;
  for (const auto& arg : resolved->args)
    if (const auto* b = std::get_if<config::resolved_buffer>(&arg))
      buffer_bytes += static_cast<double>(b->bytes);

  std::vector<bench_row> rows;
  // Without a GPU: compile (so syntax and resources are checked), then say what is missing.
  const std::vector<int> targets = have_gpu ? gpus : std::vector<int>{-1};
  for (int ordinal : targets) {
    bench_row row;
    row.gpu = ordinal;
    row.bytes = buffer_bytes;
    const gpu::device_info* device = have_gpu ? &host->devices[static_cast<std::size_t>(ordinal)] : nullptr;
    row.gpu_name = device ? device->name : "(no GPU)";
    const std::string arch = spec->kernel.arch.value_or(device ? device->arch() : std::string{fallback_arch});

    auto built = compiler.compile(compile_request_for(candidate, *candidate_text, arch, *resolved));
    auto built_reference = compiler.compile(compile_request_for(reference, *reference_text, arch, *resolved));
    if (!built || !built_reference) {
      const auto& failure = !built ? built.error() : built_reference.error();
      row.outcome = "compile_error";
      row.detail = std::string{!built ? "candidate" : "reference"} + ": " + failure.log.substr(0, 400);
      emit(feed::event_type::branch_failed, ordinal,
           feed::detail{}.add("outcome", row.outcome).add("log", failure.log).json());
      rows.push_back(row);
      continue;
    }
    emit(feed::event_type::branch_compiled, ordinal,
         feed::detail{}.add("arch", arch).add("cache_hit", built->cache_hit).add("compile_s", built->compile_s).json());
    if (!device) {
      row.outcome = "not_run";
      row.detail = "compiled for " + arch + "; measurements need a GPU (" +
                   (host ? host->reason : std::string{"the runner did not answer"}) + ")";
      rows.push_back(row);
      continue;
    }

    const auto branch = dir->branch_dir(spec->name, 1, ordinal);
    fs::create_directories(branch);
    const auto candidate_cubin = branch / "candidate.cubin";
    const auto reference_cubin = branch / "reference.cubin";
    std::ofstream{candidate_cubin, std::ios::binary}.write(reinterpret_cast<const char*>(built->cubin.data()),
                                                          static_cast<std::streamsize>(built->cubin.size()));
    std::ofstream{reference_cubin, std::ios::binary}.write(
      reinterpret_cast<const char*>(built_reference->cubin.data()), static_cast<std::streamsize>(built_reference->cubin.size()));

    auto lock = gpu::gpu_lock::acquire(device->uuid, "warpforge bench " + options.problem_path,
                                       gpu::lock_policy::wait, options.lock_timeout);
    if (!lock) {
      row.outcome = "not_run";
      row.detail = lock.error().to_string();
      rows.push_back(row);
      continue;
    }
    gpu::runner_options runner;
    runner.executable = *runner_path;
    runner.visible_devices = device->uuid;
    auto client = gpu::runner_client::start(runner);
    if (!client) {
      row.outcome = "runtime_error";
      row.detail = client.error().to_string();
      rows.push_back(row);
      continue;
    }
    gpu::candidate_inputs inputs;
    inputs.candidate_cubin = candidate_cubin;
    inputs.candidate_entry = candidate.entry;
    inputs.reference_cubin = reference_cubin;
    inputs.reference_entry = reference.entry;
    inputs.seed = config::defaults::seed;
    inputs.mode = options.cold ? gpu::timing_mode::cold : gpu::timing_mode::warm;
    auto request = gpu::make_candidate_request(*resolved, spec->reference, inputs);
    const auto watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(options.watchdog_s));
    auto result = client->run_candidate(request, watchdog);
    if (!result) {
      row.outcome = result.error().kind == gpu::runner_error_kind::reply_timeout ? "timeout" : "runtime_error";
      row.detail = result.error().to_string();
    } else {
      row.outcome = std::string{gpu::to_string(result->outcome)};
      row.detail = result->detail;
      if (result->outcome == gpu::candidate_outcome::passed)
        row.stats = result->stats;
    }
    if (row.stats)
      emit(feed::event_type::branch_measured, ordinal,
           feed::detail{}
             .add("gpu_name", row.gpu_name)
             .add("time_s", row.stats->median_s)
             .add("cv", row.stats->cv)
             .add("samples", static_cast<std::uint64_t>(row.stats->count))
             .add("ci95_low_s", row.stats->median_ci.low)
             .add("ci95_high_s", row.stats->median_ci.high)
             .add("mode", options.cold ? "cold" : "warm")
             .json());
    else
      emit(feed::event_type::branch_failed, ordinal,
           feed::detail{}.add("outcome", row.outcome).add("detail", row.detail).json());
    rows.push_back(row);
  }

  print_table(rows);
  bool all_passed = true;
  for (const auto& r : rows)
    all_passed = all_passed && r.outcome == "passed";
  const auto state = all_passed ? storage::job_state::finished : storage::job_state::failed;
  runtime.record(messages::job_state_change{*job_id, state, all_passed ? "" : rows.front().detail});
  runtime.record(messages::campaign_state_change{
    *campaign_id, all_passed ? storage::campaign_state::finished : storage::campaign_state::failed, {}});
  runtime.stop();
  std::cerr << "recorded in " << dir->path().string() << '\n';
  logging::shutdown();
  bool compiled = true;
  for (const auto& r : rows)
    compiled = compiled && r.outcome != "compile_error";
  if (!have_gpu && compiled) {
    std::cerr << "warpforge bench: no usable GPU here: the kernels were compiled and checked; "
                 "measurements need a GPU\n";
    return exit_code::no_gpu;
  }
  return all_passed ? exit_code::ok : exit_code::failure;
}

} // namespace warpforge::cli
