// Needs a GPU (labels gpu, cheat): every kernel of tests/cheat/cheats.tsv that the runner itself
// must catch, raced with the honest kernel of its problem through the real warpforge-runner
// (runner_keeper: a fresh runner after the persistent kernel's timeout), each getting the outcome
// and reason the manifest gives; the honest kernel is still measured. Also a fresh race (the
// physical-limit gate's cold re-verification). Skips without a usable GPU.
#include "actors/runner_keeper.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/runner_client.hpp"
#include "tests/cheat/cheat_manifest.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

using namespace warpforge;
using namespace warpforge::gpu;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using vocabulary::branch_outcome;
using warpforge::cheat::cheat_entry;

namespace {

constexpr std::uint32_t transpose_edge = 8192; // examples/transpose: 8192 x 8192 f32
constexpr std::uint32_t vector_elements = 1u << 24; // examples/vector_add: 16 Mi f32
constexpr auto race_deadline = 300s;

std::string runner_path() {
  const char* path = std::getenv("WARPFORGE_RUNNER");
  return path && *path ? path : WARPFORGE_RUNNER_PATH;
}

struct gpu_environment {
  bool usable = false;
  std::string why;
  std::string arch;
  fs::path dir;
};

gpu_environment& env() {
  static gpu_environment e = [] {
    gpu_environment out;
    runner_options options;
    options.executable = runner_path();
    auto runner = runner_client::start(options);
    if (!runner) {
      out.why = runner.error().to_string();
      return out;
    }
    auto report = runner->device_query(device_query_depth::full);
    if (!report || report->status != gpu_status::ok || report->devices.empty()) {
      out.why = report ? report->reason : report.error().to_string();
      return out;
    }
    out.arch = report->devices[0].arch();
    out.dir = fs::temp_directory_path() / ("warpforge-cheat-test-" + std::to_string(::getpid()));
    fs::create_directories(out.dir);
    out.usable = true;
    std::cout << "GPU: " << report->devices[0].name << " (" << out.arch << ")\n";
    return out;
  }();
  return e;
}

#define REQUIRE_GPU()                                                                              \
  if (!env().usable)                                                                               \
  GTEST_SKIP() << "no usable GPU: " << env().why

// `source`'s `entry` built with NVRTC for the GPU, written to a CUBIN file; empty path on failure.
fs::path cubin_of(const std::string& source, const std::string& name, const std::string& entry) {
  compile_request request;
  request.source = source;
  request.source_name = name;
  request.entry = entry;
  request.arch = env().arch;
  auto built = compile_kernel(request);
  EXPECT_TRUE(built) << name << ": " << (built ? "" : built.error().log);
  if (!built)
    return {};
  const auto path = env().dir / (name + "-" + entry + ".cubin");
  std::ofstream{path, std::ios::binary}.write(reinterpret_cast<const char*>(built->cubin.data()),
                                               static_cast<std::streamsize>(built->cubin.size()));
  return path;
}

std::string read(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

config::launch_geometry problem_launch(const std::string& problem) {
  if (problem == "transpose")
    return {{transpose_edge / 32, transpose_edge / 32, 1}, {32, 8, 1}, 0};
  return {{vector_elements / 256, 1, 1}, {256, 1, 1}, 0};
}

// The problem's arguments and reference, as the coordinator would send them (examples/).
race_request problem_race(const std::string& problem) {
  race_request r;
  const auto root = cheat::source_root();
  if (problem == "transpose") {
    r.reference = kernel_launch{cubin_of(read(root / "examples/transpose/reference.cu"), "reference.cu", "transpose_reference"),
                                "transpose_reference",
                                {{transpose_edge / 16, transpose_edge / 16, 1}, {16, 16, 1}, 0}};
    const std::uint64_t n = std::uint64_t{transpose_edge} * transpose_edge;
    r.args.emplace_back(candidate_buffer_arg{"in", config::dtype::f32, n, config::arg_role::input, {}, {0.0, 0.0}});
    r.args.emplace_back(candidate_buffer_arg{"out", config::dtype::f32, n, config::arg_role::output, {}, {0.0, 0.0}});
    r.args.emplace_back(candidate_scalar_arg{"rows", config::dtype::i32, std::int64_t{transpose_edge}});
    r.args.emplace_back(candidate_scalar_arg{"cols", config::dtype::i32, std::int64_t{transpose_edge}});
  } else {
    r.reference = kernel_launch{cubin_of(read(root / "examples/vector_add/kernel.cu"), "kernel.cu", "vector_add"),
                                "vector_add", problem_launch(problem)};
    const config::tolerance tol{1e-5, 1e-6};
    config::init_spec uniform;
    uniform.kind = config::init_kind::uniform;
    uniform.low = -1.0;
    uniform.high = 1.0;
    r.args.emplace_back(candidate_buffer_arg{"a", config::dtype::f32, vector_elements, config::arg_role::input, uniform, tol});
    r.args.emplace_back(candidate_buffer_arg{"b", config::dtype::f32, vector_elements, config::arg_role::input, {}, tol});
    r.args.emplace_back(candidate_buffer_arg{"c", config::dtype::f32, vector_elements, config::arg_role::output, {}, tol});
    r.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i32, std::int64_t{vector_elements}});
  }
  r.seeds = {2026, 2027};
  r.timing.max_time_s = 2.0; // keep the suite short
  return r;
}

void print(const std::vector<cheat_entry>& cheats, const race_result& r) {
  for (std::size_t j = 0; j < r.kernels.size() && j < cheats.size(); ++j) {
    const auto& k = r.kernels[j];
    std::cout << "  " << cheats[j].kind << " (" << cheats[j].name() << "): " << to_string(k.outcome) << " | "
              << k.detail;
    if (k.outcome == branch_outcome::passed)
      std::cout << " | median " << k.stats.median_s * 1e6 << " us";
    std::cout << "\n";
  }
  for (const auto& note : r.notes)
    std::cout << "  note: " << note << "\n";
}

// Races every kernel of `problem` the manifest asserts through the runner, and checks each.
void race_the_cheats(const std::string& problem) {
  std::vector<cheat_entry> cheats;
  auto request = problem_race(problem);
  ASSERT_FALSE(request.reference->cubin_path.empty());
  for (const auto& e : cheat::cheats_for(problem)) {
    if (!e.runner)
      continue; // another check catches it (the manifest says which)
    const auto cubin = cubin_of(e.source(), e.name(), problem);
    ASSERT_FALSE(cubin.empty()) << e.name();
    request.kernels.push_back(kernel_launch{cubin, problem, problem_launch(problem)});
    cheats.push_back(e);
  }
  actors::runner_keeper_options options;
  options.runner.executable = runner_path();
  actors::runner_keeper keeper{options, [](const actors::runner_event& e) {
                                 std::cout << "runner event: pid " << e.pid << " " << e.reason << "\n";
                               }};
  auto result = keeper.run(request, race_deadline);
  keeper.stop();
  ASSERT_TRUE(result) << result.error().to_string();
  print(cheats, *result);
  ASSERT_EQ(result->kernels.size(), cheats.size());
  for (std::size_t j = 0; j < cheats.size(); ++j) {
    const auto& e = cheats[j];
    const auto& k = result->kernels[j];
    EXPECT_EQ(k.outcome, *e.runner) << e.kind << " (" << e.name() << "): " << k.detail;
    if (!e.reason.empty())
      EXPECT_NE(k.detail.find(e.reason), std::string::npos) << e.kind << ": " << k.detail;
    if (k.outcome == branch_outcome::inconsistent) {
      // The reason names the round, the launch in the batch, the seed and the first difference.
      EXPECT_NE(k.detail.find("round "), std::string::npos) << k.detail;
      EXPECT_NE(k.detail.find("timed launch "), std::string::npos) << k.detail;
      ASSERT_TRUE(k.seed) << e.kind;
      EXPECT_NE(k.detail.find("seed " + std::to_string(*k.seed)), std::string::npos) << k.detail;
      EXPECT_TRUE(k.compare || k.input) << e.kind << ": the comparison's report comes back";
      EXPECT_EQ(k.stats.count, 0u) << e.kind << ": no time is reported for it";
    }
    if (k.outcome == branch_outcome::passed)
      EXPECT_GT(k.stats.median_s, 0.0) << e.kind;
  }
}

} // namespace

TEST(cheat_runner, transpose_cheats_that_skip_timed_work_are_inconsistent_and_the_honest_kernel_is_measured) {
  REQUIRE_GPU();
  race_the_cheats("transpose");
}

TEST(cheat_runner, vector_add_cheats_are_caught_by_the_verified_launches_and_the_watchdog) {
  REQUIRE_GPU();
  race_the_cheats("vector_add");
}

TEST(cheat_runner, a_fresh_race_loads_allocates_and_generates_anew_and_still_catches_the_memo) {
  REQUIRE_GPU();
  auto request = problem_race("transpose");
  const auto root = cheat::source_root();
  request.kernels = {
    kernel_launch{cubin_of(read(root / "examples/transpose/kernel.cu"), "kernel.cu", "transpose"), "transpose",
                  problem_launch("transpose")},
    kernel_launch{cubin_of(read(root / "tests/cheat/transpose/memo_pointers.cu"), "memo_pointers.cu", "transpose"),
                  "transpose", problem_launch("transpose")}};
  request.fresh = true;
  runner_options options;
  options.executable = runner_path();
  auto runner = runner_client::start(options);
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto first = runner->run_race(request, race_deadline);
  ASSERT_TRUE(first) << first.error().to_string();
  const auto& r = *first;
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].outcome, branch_outcome::passed) << r.kernels[0].detail;
  EXPECT_EQ(r.kernels[1].outcome, branch_outcome::inconsistent) << r.kernels[1].detail;
  EXPECT_GT(r.inputs_s, 0.0) << "fresh: the inputs are generated again, never taken from the cache";
  bool said_fresh = false;
  bool said_cold = false;
  for (const auto& note : r.notes) {
    said_fresh = said_fresh || note.starts_with("fresh:");
    said_cold = said_cold || note.starts_with("cold:");
  }
  EXPECT_TRUE(said_fresh);
  EXPECT_TRUE(said_cold) << "fresh flushes the L2 before each launch, whatever the mode";
  // The same request again on the same runner: still generated anew.
  auto again = runner->run_race(request, race_deadline);
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_GT(again->inputs_s, 0.0);
  EXPECT_EQ(again->kernels.at(0).outcome, branch_outcome::passed);
  EXPECT_EQ(runner->stop().exit_code, 0);
}
