// warpforge-profile-bench: what one profile of a kernel costs inside a runner, phase by phase,
// under kernel replay and under user replay, on a real GPU. Not a test: prints, asserts nothing.
//
//   warpforge-profile-bench [--problem examples/transpose/problem.toml] [--repeat 5] [--runner PATH]
//
// Compiles the problem's default point and its reference with NVRTC, starts one runner, and
// profiles the kernel `--repeat` times with every metric of the built-in schema (what a
// campaign's profile collects), first under kernel replay (CUPTI saves and restores device
// memory between passes), then under user replay (the runner restores the inputs itself). Per
// profile: the wall seconds as the client sees them, the passes, and the runner's own phases
// (its note's "time: ..."); then how far the two replays' values are apart. Several copies started
// at once on different GPUs (CUDA_VISIBLE_DEVICES) show what profiling on every GPU costs.

#include "actors/runner_keeper.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "config/toml_reader/placed_error.hpp"
#include "diagnosis/metric_schema.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/profiling/metric_collection.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/race_request.hpp"
#include "gpu/runner/runner_client.hpp"
#include "tuning/search_space.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpforge;
namespace fs = std::filesystem;

namespace {

constexpr auto profile_deadline = std::chrono::seconds{120};

std::string read_text(const fs::path& path) {
  std::ifstream in{path};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool compile_to(const config::kernel_spec& kernel, const config::resolved_problem& resolved, const std::string& arch,
                const fs::path& cubin) {
  gpu::compile_request request;
  request.source = read_text(kernel.source);
  request.source_name = kernel.source.filename().string();
  request.entry = kernel.entry;
  request.arch = arch;
  request.extra_flags = resolved.defines;
  request.extra_flags.insert(request.extra_flags.end(), kernel.flags.begin(), kernel.flags.end());
  auto compiled = gpu::compile_kernel(request);
  if (!compiled) {
    std::fprintf(stderr, "compile %s failed: %s\n", kernel.source.string().c_str(), compiled.error().log.c_str());
    return false;
  }
  std::ofstream{cubin, std::ios::binary}.write(reinterpret_cast<const char*>(compiled->cubin.data()),
                                               static_cast<std::streamsize>(compiled->cubin.size()));
  return true;
}

// The runner's phases from its note: everything after "time: ".
std::string phases_of(const std::string& note) {
  const auto at = note.find("time: ");
  return at == std::string::npos ? "(no phases in the note)" : note.substr(at + 6);
}

} // namespace

int main(int argc, char** argv) {
  fs::path problem = fs::path{WARPFORGE_SOURCE_DIR} / "examples/transpose/problem.toml";
  std::size_t repeat = 5;
  std::optional<fs::path> runner;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--problem" && has_value)
      problem = argv[++i];
    else if (flag == "--repeat" && has_value)
      repeat = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    else if (flag == "--runner" && has_value)
      runner = argv[++i];
    else {
      std::fprintf(stderr, "usage: warpforge-profile-bench [--problem P] [--repeat N] [--runner PATH]\n");
      return 2;
    }
  }
  auto spec = config::load_problem(problem);
  if (!spec) {
    std::fprintf(stderr, "%s\n", toml_reader::to_string(spec.error()).c_str());
    return 2;
  }
  auto space = tuning::search_space::from_problem(*spec);
  if (!space) {
    std::fprintf(stderr, "%s\n", tuning::to_string(space.error()).c_str());
    return 2;
  }
  auto resolved = config::resolve_problem(*spec, space->default_point());
  if (!resolved) {
    std::fprintf(stderr, "%s\n", toml_reader::to_string(resolved.error()).c_str());
    return 2;
  }
  actors::runner_keeper_options keeper_options;
  if (runner)
    keeper_options.runner.executable = *runner;
  else if (auto found = gpu::locate_runner())
    keeper_options.runner.executable = *found;
  else {
    std::fprintf(stderr, "%s\n", found.error().to_string().c_str());
    return 2;
  }
  std::string arch;
  {
    auto probe = gpu::runner_client::start(keeper_options.runner);
    auto report = probe ? probe->device_query() : expected<gpu::host_report, gpu::runner_error>{unexpected{probe.error()}};
    if (!report || report->status != gpu::gpu_status::ok || report->devices.empty()) {
      std::fprintf(stderr, "no usable GPU: %s\n", report ? report->reason.c_str() : report.error().to_string().c_str());
      return 3;
    }
    arch = spec->kernel.arch.value_or(report->devices[0].arch());
    std::printf("profile bench: %s on %s (%s), %zu profiles per replay\n", problem.c_str(),
                report->devices[0].name.c_str(), arch.c_str(), repeat);
  }

  std::string pattern = (fs::temp_directory_path() / "wf-profile-bench-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  gpu::race_inputs inputs;
  const auto& reference_kernel =
    spec->reference.kind == config::reference_kind::kernel ? spec->reference.kernel : spec->kernel;
  inputs.reference_cubin = dir / "reference.cubin";
  inputs.reference_entry = reference_kernel.entry;
  if (spec->reference.kind == config::reference_kind::self)
    inputs.reference_launch = resolved->launch;
  inputs.seed = 20240917;
  const fs::path cubin = dir / "candidate.cubin";
  if (!compile_to(reference_kernel, *resolved, arch, *inputs.reference_cubin) ||
      !compile_to(spec->kernel, *resolved, arch, cubin))
    return 1;
  inputs.kernels.push_back({cubin, spec->kernel.entry, resolved->launch});

  gpu::profile_request request;
  request.run = gpu::make_race_request(*resolved, spec->reference, inputs);
  request.metrics = gpu::nsight_names_for({}, diagnosis::builtin_metric_schema()).names;

  actors::runner_keeper keeper{keeper_options, [](const actors::runner_event& e) {
                                 if (!e.reason.empty())
                                   std::printf("  runner event: %s\n", e.reason.c_str());
                               }};
  const auto start = std::chrono::steady_clock::now();
  if (!keeper.ensure_running()) {
    std::fprintf(stderr, "the runner would not start: %s\n", keeper.give_up_reason().c_str());
    return 3;
  }
  std::printf("  runner started in %.3f s; %zu metrics\n", seconds_since(start), request.metrics.size());
  std::vector<gpu::profile_result> last;
  for (auto replay : gpu::all_profile_replays) {
    request.replay = replay;
    double total = 0.0;
    for (std::size_t i = 0; i < repeat; ++i) {
      const auto began = std::chrono::steady_clock::now();
      auto result = keeper.profile(request, profile_deadline);
      const double took = seconds_since(began);
      if (!result) {
        std::fprintf(stderr, "%s replay, profile %zu: %s\n", std::string{to_string(replay)}.c_str(), i,
                     result.error().to_string().c_str());
        return 1;
      }
      total += took;
      std::printf("  %-6s replay #%zu: %.3f s, %s, %zu values, %u passes; %s\n", std::string{to_string(replay)}.c_str(), i,
                  took, std::string{to_string(result->status)}.c_str(), result->values.size(), result->passes,
                  phases_of(result->note).c_str());
      if (i + 1 == repeat)
        last.push_back(*result);
    }
    std::printf("  %s replay: %.3f s per profile (mean of %zu)\n", std::string{to_string(replay)}.c_str(),
                total / static_cast<double>(repeat), repeat);
  }
  if (last.size() == 2) {
    std::size_t compared = 0, within_5 = 0;
    std::string apart;
    for (const auto& [name, kernel_value] : last[0].values) {
      auto user = last[1].values.find(name);
      if (user == last[1].values.end())
        continue;
      ++compared;
      const double scale = std::max(std::abs(kernel_value), std::abs(user->second));
      const double gap = scale > 0 ? std::abs(kernel_value - user->second) / scale : 0.0;
      if (gap <= 0.05)
        ++within_5;
      else if (apart.size() < 600)
        apart += " " + name + " (" + std::to_string(kernel_value) + " vs " + std::to_string(user->second) + ")";
    }
    std::printf("  kernel vs user replay: %zu of %zu values within 5%%;%s\n", within_5, compared,
                apart.empty() ? " none apart" : (" apart:" + apart).c_str());
  }
  keeper.stop();
  fs::remove_all(dir);
  return 0;
}
