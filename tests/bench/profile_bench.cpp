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
#include "gpu/profiling/metric_collection.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/race_request.hpp"
#include "tuning/search_space.hpp"
#include "tests/bench/bench_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpforge;
namespace fs = std::filesystem;

namespace {

constexpr auto profile_deadline = std::chrono::seconds{120};

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
  auto executable = bench::runner_executable(runner);
  if (!executable)
    return 2;
  keeper_options.runner.executable = *executable;
  auto device = bench::first_gpu(keeper_options.runner);
  if (!device)
    return 3;
  const std::string arch = spec->kernel.arch.value_or(device->arch());
  std::printf("profile bench: %s on %s (%s), %zu profiles per replay\n", problem.c_str(), device->name.c_str(),
              arch.c_str(), repeat);

  auto scratch = bench::scratch_folder::make("wf-profile-bench");
  if (!scratch)
    return 2;
  const fs::path& dir = scratch->path();
  auto inputs = bench::inputs_with_reference(*spec, *resolved, dir);
  const fs::path cubin = dir / "candidate.cubin";
  if (bench::compile_to(bench::reference_kernel(*spec), *resolved, arch, *inputs.reference_cubin) < 0 ||
      bench::compile_to(spec->kernel, *resolved, arch, cubin) < 0)
    return 1;
  inputs.kernels.push_back({cubin, spec->kernel.entry, resolved->launch});

  gpu::profile_request request;
  request.run = gpu::make_race_request(*resolved, spec->reference, inputs);
  request.metrics = gpu::nsight_names_for({}, diagnosis::builtin_metric_schema()).names;

  auto keeper = bench::started_keeper(keeper_options);
  if (!keeper)
    return 3;
  std::printf("  %zu metrics\n", request.metrics.size());
  std::vector<gpu::profile_result> last;
  for (auto replay : gpu::all_profile_replays) {
    request.replay = replay;
    double total = 0.0;
    for (std::size_t i = 0; i < repeat; ++i) {
      const auto began = std::chrono::steady_clock::now();
      auto result = keeper->profile(request, profile_deadline);
      const double took = bench::seconds_since(began);
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
  keeper->stop();
  return 0;
}
