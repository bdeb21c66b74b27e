// warpforge-race-bench: what one race costs inside a runner, phase by phase, on a real GPU.
// Not a test: prints timings and the re-measurement check, asserts nothing.
//
//   warpforge-race-bench [--problem examples/transpose/problem.toml] [--candidates 8]
//                        [--repeat 20] [--cold] [--runner PATH]
//
// 1. compiles `--candidates` distinct points of the problem's search space (the default point
//    first: the incumbent) and its reference with NVRTC, timing each compile;
// 2. races them on a fresh runner (runner_keeper), then once more on the same, warm runner, and
//    prints each race's phases (set-up, inputs, reference, checks, warm-up, rounds) and each
//    kernel's verdict, median, interval half-width, rounds and GPU time; "per verified kernel" is
//    (compiles + race wall) / kernels that passed; "GPU busy" is GPU time / race wall;
// 3. races the incumbent alone `--repeat` times in a row on that runner and prints the share of
//    re-measured medians inside the first race's interval, and inside the previous race's.

#include "config/toml_reader/placed_error.hpp"
#include "actors/runner_keeper.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/race_request.hpp"
#include "gpu/runner/runner_client.hpp"
#include "tuning/search_space.hpp"
#include "tests/bench/bench_support.hpp"

#include <algorithm>
#include <chrono>
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

constexpr auto per_kernel_deadline = std::chrono::seconds{120};

struct options {
  fs::path problem = fs::path{WARPFORGE_SOURCE_DIR} / "examples/transpose/problem.toml";
  std::size_t candidates = 8;
  std::size_t repeat = 20;
  bool cold = false;
  std::optional<fs::path> runner;
};

std::string point_text(const config::tunable_point& point) {
  std::string text;
  for (const auto& [name, value] : point)
    text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return text.empty() ? "(no tunables)" : text;
}

double half_width(const gpu::kernel_result& k) {
  const auto& s = k.stats;
  return s.median_s > 0 ? std::max(s.median_ci.high - s.median_s, s.median_s - s.median_ci.low) / s.median_s : 0.0;
}

void print_race(const char* title, const gpu::race_result& r, const std::vector<std::string>& labels,
                double compile_s) {
  double gpu_s = 0.0, load_s = 0.0, check_s = 0.0, warmup_s = 0.0, timing_s = 0.0;
  std::size_t passed = 0;
  for (const auto& k : r.kernels) {
    gpu_s += k.kernel_s;
    load_s += k.load_s;
    check_s += k.check_s;
    warmup_s += k.warmup_s;
    timing_s += k.timing_s;
    passed += k.outcome == vocabulary::branch_outcome::passed;
  }
  std::printf("\n%s: %zu kernels, wall %.3f s = set-up %.3f + inputs %.3f + reference %.3f + loads %.3f + "
              "checks %.3f + warm-ups %.3f + rounds %.3f (batches %.3f) + rest %.3f\n",
              title, r.kernels.size(), r.wall_s, r.setup_s, r.inputs_s, r.reference_wall_s, load_s,
              check_s, warmup_s, r.rounds_wall_s, timing_s,
              r.wall_s - r.setup_s - r.inputs_s - r.reference_wall_s - load_s - check_s - warmup_s - r.rounds_wall_s);
  std::printf("  reference %.1f us, kernel watchdog %.1f s, SM clock %.0f -> %.0f MHz, GPU busy %.1f%%\n",
              r.reference_s * 1e6, r.watchdog_s, r.sm_clock_hz_before / 1e6, r.sm_clock_hz_after / 1e6,
              r.wall_s > 0 ? 100.0 * gpu_s / r.wall_s : 0.0);
  std::printf("  %-3s %-44s %-14s %10s %8s %6s %5s %6s %8s %8s %8s %8s\n", "#", "point", "outcome", "median",
              "+-CI", "rounds", "batch", "warm", "GPU s", "check s", "warm s", "time s");
  for (std::size_t j = 0; j < r.kernels.size(); ++j) {
    const auto& k = r.kernels[j];
    std::printf("  %-3zu %-44s %-14s %8.2fus %7.3f%% %6u %5u %6u %8.4f %8.4f %8.4f %8.4f %s\n", j,
                labels[j].substr(0, 44).c_str(), std::string{to_string(k.outcome)}.c_str(),
                k.stats.median_s * 1e6, 100.0 * half_width(k), k.rounds, k.batch_samples,
                k.warmup_launches, k.kernel_s, k.check_s, k.warmup_s, k.timing_s,
                k.outcome == vocabulary::branch_outcome::passed ? std::string{to_string(k.decision)}.c_str()
                                                                 : k.detail.substr(0, 80).c_str());
  }
  if (passed > 0)
    std::printf("  per verified kernel: %.3f s (compiles %.3f s + race %.3f s over %zu passed)\n",
                (compile_s + r.wall_s) / static_cast<double>(passed), compile_s, r.wall_s, passed);
  for (const auto& note : r.notes)
    std::printf("  note: %s\n", note.c_str());
}

} // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--problem" && has_value)
      o.problem = argv[++i];
    else if (flag == "--candidates" && has_value)
      o.candidates = std::max(1, std::atoi(argv[++i]));
    else if (flag == "--repeat" && has_value)
      o.repeat = static_cast<std::size_t>(std::max(0, std::atoi(argv[++i])));
    else if (flag == "--runner" && has_value)
      o.runner = argv[++i];
    else if (flag == "--cold")
      o.cold = true;
    else {
      std::fprintf(stderr, "usage: warpforge-race-bench [--problem P] [--candidates N] [--repeat R] "
                           "[--cold] [--runner PATH]\n");
      return 2;
    }
  }
  auto spec = config::load_problem(o.problem);
  if (!spec) {
    std::fprintf(stderr, "%s\n", toml_reader::to_string(spec.error()).c_str());
    return 2;
  }
  if (spec->reference.kind == config::reference_kind::file) {
    std::fprintf(stderr, "%s: an expected-values reference cannot be raced\n", o.problem.c_str());
    return 2;
  }
  auto space = tuning::search_space::from_problem(*spec);
  if (!space) {
    std::fprintf(stderr, "%s\n", tuning::to_string(space.error()).c_str());
    return 2;
  }
  std::vector<config::tunable_point> points{space->default_point()};
  for (const auto& p : space->valid_points())
    if (points.size() < o.candidates && p != points.front())
      points.push_back(p);

  actors::runner_keeper_options keeper_options;
  auto runner = bench::runner_executable(o.runner);
  if (!runner)
    return 2;
  keeper_options.runner.executable = *runner;
  auto device = bench::first_gpu(keeper_options.runner);
  if (!device)
    return 3;
  const std::string arch = spec->kernel.arch.value_or(device->arch());
  std::printf("race bench: %s on %s (%s), %zu candidates, %s, NVRTC %s\n", o.problem.c_str(), device->name.c_str(),
              arch.c_str(), points.size(), o.cold ? "cold" : "warm", gpu::nvrtc_version_text().c_str());

  auto scratch = bench::scratch_folder::make("wf-race-bench");
  if (!scratch)
    return 2;
  const fs::path& dir = scratch->path();
  auto default_resolved = config::resolve_problem(*spec, points.front());
  if (!default_resolved) {
    std::fprintf(stderr, "%s\n", toml_reader::to_string(default_resolved.error()).c_str());
    return 2;
  }
  auto inputs = bench::inputs_with_reference(*spec, *default_resolved, dir);
  inputs.mode = o.cold ? vocabulary::timing_mode::cold : vocabulary::timing_mode::warm;
  const double reference_compile_s =
    bench::compile_to(bench::reference_kernel(*spec), *default_resolved, arch, *inputs.reference_cubin);
  if (reference_compile_s < 0)
    return 1;
  double compile_s = 0.0;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < points.size(); ++i) {
    auto resolved = config::resolve_problem(*spec, points[i]);
    if (!resolved)
      continue;
    const fs::path cubin = dir / ("candidate-" + std::to_string(i) + ".cubin");
    const double took = bench::compile_to(spec->kernel, *resolved, arch, cubin);
    if (took < 0)
      continue;
    compile_s += took;
    inputs.kernels.push_back({cubin, spec->kernel.entry, resolved->launch});
    labels.push_back(point_text(points[i]));
    std::printf("  compiled %-44s in %6.1f ms\n", labels.back().c_str(), took * 1e3);
  }
  std::printf("  reference compiled in %.1f ms; candidates %.1f ms in all\n", reference_compile_s * 1e3,
              compile_s * 1e3);
  const auto race = gpu::make_race_request(*default_resolved, spec->reference, inputs);

  auto keeper = bench::started_keeper(keeper_options);
  if (!keeper)
    return 3;
  for (const char* title : {"race 1 (fresh runner)", "race 2 (same runner, warm caches)"}) {
    auto result = keeper->run(race, per_kernel_deadline);
    if (!result) {
      std::fprintf(stderr, "%s: %s\n", title, result.error().to_string().c_str());
      return 1;
    }
    print_race(title, *result, labels, compile_s);
  }

  if (o.repeat >= 2 && !race.kernels.empty()) {
    auto alone = race;
    alone.kernels.resize(1);
    std::vector<gpu::kernel_result> runs;
    for (std::size_t i = 0; i < o.repeat; ++i) {
      auto result = keeper->run(alone, per_kernel_deadline);
      if (!result || result->kernels.front().outcome != vocabulary::branch_outcome::passed) {
        std::fprintf(stderr, "repeat %zu: %s\n", i,
                     result ? result->kernels.front().detail.c_str() : result.error().to_string().c_str());
        return 1;
      }
      runs.push_back(result->kernels.front());
    }
    std::size_t inside_first = 0, inside_previous = 0;
    std::printf("\nre-measurement: %s alone, %zu races in a row on one runner\n", labels.front().c_str(), runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const double m = runs[i].stats.median_s;
      const auto& first = runs.front().stats.median_ci;
      const auto& previous = runs[i > 0 ? i - 1 : 0].stats.median_ci;
      if (i > 0) {
        inside_first += m >= first.low && m <= first.high;
        inside_previous += m >= previous.low && m <= previous.high;
      }
      std::printf("  %2zu median %10.3f us  CI [%10.3f, %10.3f] +-%.3f%%  %u rounds x %u  %s\n", i, m * 1e6,
                  runs[i].stats.median_ci.low * 1e6, runs[i].stats.median_ci.high * 1e6, 100.0 * half_width(runs[i]),
                  runs[i].rounds, runs[i].batch_samples, std::string{to_string(runs[i].decision)}.c_str());
    }
    std::printf("  inside the first race's interval: %zu of %zu (%.0f%%); inside the previous race's: %zu of %zu (%.0f%%)\n",
                inside_first, runs.size() - 1, 100.0 * inside_first / (runs.size() - 1), inside_previous,
                runs.size() - 1, 100.0 * inside_previous / (runs.size() - 1));
  }
  keeper->stop();
  return 0;
}
