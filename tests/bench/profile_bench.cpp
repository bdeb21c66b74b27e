// warpforge-profile-bench: what one profile of a kernel costs inside a runner, phase by phase,
// under kernel replay and under user replay, on a real GPU. Not a test: prints, asserts nothing.
//
//   warpforge-profile-bench [--problem examples/transpose/problem.toml] [--repeat 5] [--runner PATH]
//                           [--metrics FILE] [--replay kernel|user] [--races N]
//
// Compiles the problem's default point and its reference with NVRTC, starts one runner, and
// profiles the kernel `--repeat` times with every metric of the built-in schema (what a
// campaign's profile collects), first under kernel replay (CUPTI saves and restores device
// memory between passes), then under user replay (the runner restores the inputs itself). Per
// profile: the wall seconds as the client sees them, the passes, and the runner's own phases
// (its note's "time: ..."); then how far the two replays' values are apart. `--metrics` profiles
// the Nsight names listed in FILE (one a line) instead, to see what a smaller list costs;
// `--replay` keeps to one replay mode (user replay also flushes the L2 before every pass, so
// "kernel vs user replay" compares that too). `--races N` races the kernel alone N times before
// the profiles and N times after them, to see whether what a profile leaves behind in the runner
// changes the kernel's timing. Several copies started
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
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpforge;
namespace fs = std::filesystem;

namespace {

constexpr auto profile_deadline = std::chrono::seconds{120};
constexpr auto race_deadline = std::chrono::seconds{120};

// The runner's phases from its note: everything after "time: ".
std::string phases_of(const std::string& note) {
  const auto at = note.find("time: ");
  return at == std::string::npos ? "(no phases in the note)" : note.substr(at + 6);
}

// The metric names of a --metrics file: one a line, blank lines skipped.
std::optional<std::vector<std::string>> read_names(const fs::path& file) {
  std::ifstream in{file};
  if (!in) {
    std::fprintf(stderr, "cannot read the metric list %s\n", file.c_str());
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words{line}; // the name without blanks or a '\r'
    if (std::string name; words >> name)
      names.push_back(name);
  }
  if (names.empty()) {
    std::fprintf(stderr, "the metric list %s names no metric\n", file.c_str());
    return std::nullopt;
  }
  return names;
}

// `count` races of the kernel alone, each one's median and interval printed; false when one failed.
bool race_alone(actors::runner_keeper& keeper, const gpu::race_request& run, std::size_t count, const char* when) {
  for (std::size_t i = 0; i < count; ++i) {
    auto result = keeper.run(run, race_deadline);
    if (!result || result->kernels.empty() || result->kernels.front().outcome != vocabulary::branch_outcome::passed) {
      std::fprintf(stderr, "race %zu %s: %s\n", i, when,
                   !result ? result.error().to_string().c_str()
                           : result->kernels.empty() ? "no kernel" : result->kernels.front().detail.c_str());
      return false;
    }
    const auto& stats = result->kernels.front().stats;
    std::printf("  race %s #%zu: median %.3f us [%.3f, %.3f], %u rounds\n", when, i, stats.median_s * 1e6,
                stats.median_ci.low * 1e6, stats.median_ci.high * 1e6, result->kernels.front().rounds);
  }
  return true;
}

// How many values two profiles share within 5%, those that differ more, and those only one has.
void print_agreement(const std::string& what, const gpu::profile_result& a, const gpu::profile_result& b) {
  std::size_t compared = 0, within_5 = 0;
  std::string apart, in_one;
  for (const auto& [name, value] : b.values)
    if (!a.values.contains(name))
      in_one += " " + name + " (second only)";
  for (const auto& [name, a_value] : a.values) {
    auto b_value = b.values.find(name);
    if (b_value == b.values.end()) {
      in_one += " " + name + " (first only)";
      continue;
    }
    ++compared;
    const double scale = std::max(std::abs(a_value), std::abs(b_value->second));
    const double gap = scale > 0 ? std::abs(a_value - b_value->second) / scale : 0.0;
    if (gap <= 0.05)
      ++within_5;
    else if (apart.size() < 600)
      apart += " " + name + " (" + std::to_string(a_value) + " vs " + std::to_string(b_value->second) + ")";
  }
  std::printf("%s: %zu of %zu values within 5%%;%s%s\n", what.c_str(), within_5, compared,
              apart.empty() ? " none apart" : (" apart:" + apart).c_str(),
              in_one.empty() ? "" : ("; in one only:" + in_one).c_str());
}

} // namespace

int main(int argc, char** argv) {
  fs::path problem = fs::path{WARPFORGE_SOURCE_DIR} / "examples/transpose/problem.toml";
  std::size_t repeat = 5;
  std::optional<fs::path> runner;
  std::optional<fs::path> metric_list;
  std::vector<gpu::profile_replay> replays{gpu::all_profile_replays.begin(), gpu::all_profile_replays.end()};
  std::size_t races = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--problem" && has_value)
      problem = argv[++i];
    else if (flag == "--repeat" && has_value)
      repeat = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    else if (flag == "--runner" && has_value)
      runner = argv[++i];
    else if (flag == "--metrics" && has_value)
      metric_list = argv[++i];
    else if (flag == "--replay" && has_value && gpu::profile_replay_from_string(argv[i + 1]))
      replays = {*gpu::profile_replay_from_string(argv[++i])};
    else if (flag == "--races" && has_value)
      races = static_cast<std::size_t>(std::max(0, std::atoi(argv[++i])));
    else {
      std::fprintf(stderr,
                   "usage: warpforge-profile-bench [--problem P] [--repeat N] [--runner PATH] [--metrics FILE] "
                   "[--replay kernel|user] [--races N]\n");
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
  if (metric_list) {
    auto names = read_names(*metric_list);
    if (!names)
      return 2;
    request.metrics = std::move(*names);
  } else {
    request.metrics = gpu::nsight_names_for({}, diagnosis::builtin_metric_schema()).names;
  }

  auto keeper = bench::started_keeper(keeper_options);
  if (!keeper)
    return 3;
  std::printf("  %zu metrics\n", request.metrics.size());
  if (!race_alone(*keeper, request.run, races, "before the profiles"))
    return 1;
  std::vector<gpu::profile_result> last;
  for (auto replay : replays) {
    request.replay = replay;
    double total = 0.0;
    gpu::profile_result first;
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
      if (i == 0)
        first = *result;
      else // a profile must not carry anything over from the one before it
        print_agreement("  #" + std::to_string(i) + " vs #0", first, *result);
      if (i + 1 == repeat)
        last.push_back(*result);
    }
    std::printf("  %s replay: %.3f s per profile (mean of %zu)\n", std::string{to_string(replay)}.c_str(),
                total / static_cast<double>(repeat), repeat);
  }
  if (!race_alone(*keeper, request.run, races, "after the profiles"))
    return 1;
  if (last.size() == 2)
    print_agreement("  kernel vs user replay (and no L2 flush vs a flush)", last[0], last[1]);
  keeper->stop();
  return 0;
}
