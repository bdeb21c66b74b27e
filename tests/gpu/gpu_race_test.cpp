// Needs a GPU (ctest -L gpu): the real warpforge-runner runs races of NVRTC-compiled kernels,
// good and broken, through run_race; runner_keeper re-runs what a faulting kernel left
// unfinished; the runner keeps inputs and reference outputs across races. Also program mode.
// Skips without a usable GPU.
#include "actors/runner_keeper.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/exit_codes.hpp"
#include "gpu/runner/program_run.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/runner_client.hpp"
#include "tests/gpu/first_gpu.hpp"
#include "tests/gpu/test_paths.hpp"

#include <gtest/gtest.h>

#include <csignal>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <unistd.h>

using namespace warpforge;
using namespace warpforge::gpu;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using vocabulary::branch_outcome;

namespace {

constexpr std::uint32_t elements = 1u << 22;    // 16 MiB per f32 buffer
constexpr std::uint32_t threads_per_block = 256;
constexpr std::uint32_t opt_in_smem_bytes = 100 * 1024; // > 48 KiB: needs the opt-in
constexpr std::uint32_t impossible_smem_bytes = 1024 * 1024; // more than any GPU gives a block
constexpr auto run_timeout = 120s;
constexpr auto hang_timeout = 3s;

constexpr const char* kernel_source = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void vadd_twice(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // twice the memory traffic of vadd
  if (i < n) { c[i] = a[i]; c[i] = c[i] + b[i]; __threadfence(); c[i] = a[i] + b[i]; }
}
extern "C" __global__ void write_nothing(const float* a, const float* b, float* c, int n) {}
extern "C" __global__ void write_half(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) c[i] = a[i] + b[i];
}
extern "C" __global__ void mutate_input(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i == 3) const_cast<float*>(a)[3] = -1.0f;
}
extern "C" __global__ void illegal_address(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) *reinterpret_cast<volatile float*>(static_cast<unsigned long long>(n) << 40) = 1.0f;
}
extern "C" __global__ void trap(const float* a, const float* b, float* c, int n) { __trap(); }
extern "C" __global__ void smem_vadd(const float* a, const float* b, float* c, int n) {
  extern __shared__ float s[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i < n) c[i] = s[threadIdx.x] + b[i];
}
extern "C" __global__ void spin(const float* a, const float* b, float* c, int n) {
  for (;;)  // clock64 is a volatile read: the loop cannot be optimised away
    if (clock64() < 0) c[0] = 1.0f;
}
)";

struct environment {
  bool usable = false;
  std::string why;
  std::string arch; // the GPU's, e.g. "sm_90"
  fs::path dir;
  fs::path cubin;
};

environment& env() {
  static environment e = [] {
    environment out;
    auto gpu = test::first_gpu();
    if (!gpu) {
      out.why = gpu.error();
      return out;
    }
    compile_request request;
    request.source = kernel_source;
    request.entry = "vadd";
    request.arch = gpu->arch();
    out.arch = request.arch;
    auto compiled = compile_kernel(request);
    if (!compiled) {
      out.why = "compile failed: " + compiled.error().log;
      return out;
    }
    out.dir = fs::temp_directory_path() / ("warpforge-race-test-" + std::to_string(::getpid()));
    fs::create_directories(out.dir);
    out.cubin = out.dir / "kernels.cubin";
    std::ofstream file{out.cubin, std::ios::binary};
    file.write(reinterpret_cast<const char*>(compiled->cubin.data()),
               static_cast<std::streamsize>(compiled->cubin.size()));
    out.usable = file.good();
    std::cout << "GPU: " << gpu->name << " (" << request.arch << "), CUBIN "
              << compiled->cubin.size() << " bytes\n";
    return out;
  }();
  return e;
}

config::launch_geometry geometry(std::uint32_t smem = 0) {
  return {{(elements + threads_per_block - 1) / threads_per_block, 1, 1},
          {threads_per_block, 1, 1},
          smem};
}

kernel_launch kernel(const std::string& entry, std::uint32_t smem = 0) {
  return {env().cubin, entry, geometry(smem)};
}

race_request race_of(std::vector<kernel_launch> kernels, std::uint32_t count = elements) {
  race_request r;
  r.kernels = std::move(kernels);
  r.reference = kernel_launch{env().cubin, "vadd", geometry()};
  config::tolerance tol{1e-6, 1e-6};
  config::init_spec normal;
  normal.kind = config::init_kind::normal;
  r.args.emplace_back(candidate_buffer_arg{"a", config::dtype::f32, count, config::arg_role::input, normal, tol});
  r.args.emplace_back(candidate_buffer_arg{"b", config::dtype::f32, count, config::arg_role::input, {}, tol});
  r.args.emplace_back(candidate_buffer_arg{"c", config::dtype::f32, count, config::arg_role::output, {}, tol});
  r.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i32, std::int64_t{count}});
  r.seeds = {1234, 1235};
  r.timing.max_time_s = 2.0; // keep the suite short
  return r;
}

runner_client start_runner() {
  runner_options options;
  options.executable = test::runner_path();
  auto runner = runner_client::start(options);
  EXPECT_TRUE(runner) << runner.error().to_string();
  return std::move(*runner);
}

void print(const race_request& request, const race_result& r) {
  std::cout << "race: wall " << r.wall_s << " s (setup " << r.setup_s << ", inputs " << r.inputs_s
            << ", reference " << r.reference_wall_s << ", rounds " << r.rounds_wall_s << "), reference "
            << r.reference_s * 1e6 << " us, watchdog " << r.watchdog_s << " s, SM clock "
            << r.sm_clock_hz_before / 1e6 << " -> " << r.sm_clock_hz_after / 1e6 << " MHz"
            << (r.ended_by ? ", ended by kernel " + std::to_string(*r.ended_by) : std::string{}) << "\n";
  for (std::size_t j = 0; j < r.kernels.size(); ++j) {
    const auto& k = r.kernels[j];
    std::cout << "  " << j << " " << (j < request.kernels.size() ? request.kernels[j].entry : "?") << ": "
              << to_string(k.outcome) << " | " << k.detail;
    if (k.outcome == branch_outcome::passed)
      std::cout << " | median " << k.stats.median_s * 1e6 << " us, CI [" << k.stats.median_ci.low * 1e6
                << ", " << k.stats.median_ci.high * 1e6 << "] us, " << k.stats.count << " samples in "
                << k.rounds << " rounds of " << k.batch_samples << ", " << to_string(k.decision)
                << ", warm-up " << k.warmup_launches << " (" << to_string(k.warmup) << "), GPU "
                << k.kernel_s << " s, load " << k.load_s << " check " << k.check_s << " warm-up "
                << k.warmup_s << " timing " << k.timing_s << " s";
    for (const auto& note : k.notes)
      std::cout << " | note: " << note;
    std::cout << "\n";
  }
  for (const auto& note : r.notes)
    std::cout << "  note: " << note << "\n";
}

race_result run(runner_client& runner, const race_request& request) {
  auto result = runner.run_race(request, run_timeout);
  EXPECT_TRUE(result) << result.error().to_string();
  if (!result)
    return {};
  print(request, *result);
  return *result;
}

std::vector<branch_outcome> outcomes(const race_result& r) {
  std::vector<branch_outcome> out;
  for (const auto& k : r.kernels)
    out.push_back(k.outcome);
  return out;
}

// Waits for a runner that announced its exit; returns its exit code.
std::optional<int> wait_exit(runner_client& runner) {
  for (int i = 0; i < 50 && runner.running(); ++i)
    std::this_thread::sleep_for(100ms);
  return runner.stop().exit_code;
}

void expect_measured(const kernel_result& k, const timing_policy& policy) {
  EXPECT_EQ(k.outcome, branch_outcome::passed) << k.detail;
  EXPECT_GT(k.stats.median_s, 0.0);
  EXPECT_GE(k.stats.count, policy.min_samples);
  EXPECT_GE(k.rounds, policy.min_rounds);
  EXPECT_TRUE(is_final(k.decision));
  if (k.decision == stop_decision::converged) {
    const double arm = std::max(k.stats.median_ci.high - k.stats.median_s, k.stats.median_s - k.stats.median_ci.low);
    EXPECT_LE(arm / k.stats.median_s, policy.ci_target);
  }
  EXPECT_GT(k.kernel_s, k.stats.count * k.stats.min_s) << "GPU time covers every launch, samples included";
  EXPECT_GT(k.check_s, 0.0);
  EXPECT_GT(k.timing_s, 0.0);
}

#define REQUIRE_GPU()                                                                              \
  if (!env().usable)                                                                               \
  GTEST_SKIP() << "no usable GPU: " << env().why

} // namespace

TEST(gpu_race, correct_kernels_pass_and_are_timed_together_warm_and_cold) {
  REQUIRE_GPU();
  auto runner = start_runner();
  for (auto mode : {vocabulary::timing_mode::warm, vocabulary::timing_mode::cold}) {
    auto request = race_of({kernel("vadd"), kernel("vadd_twice"), kernel("vadd")});
    request.mode = mode;
    auto r = run(runner, request);
    ASSERT_EQ(r.kernels.size(), 3u);
    for (const auto& k : r.kernels)
      expect_measured(k, request.timing);
    EXPECT_EQ(r.kernels[0].rounds, r.kernels[1].rounds) << "interleaved: every kernel in every round";
    EXPECT_GT(r.kernels[1].stats.median_s, r.kernels[0].stats.median_s) << "twice the traffic";
    EXPECT_GT(r.reference_s, 0.0);
    EXPECT_FALSE(r.runner_exits);
  }
  EXPECT_EQ(runner.stop().exit_code, 0);
}

TEST(gpu_race, broken_outputs_and_inputs_are_incorrect_and_the_good_kernel_is_still_timed) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto request = race_of({kernel("write_nothing"), kernel("write_half"), kernel("mutate_input"), kernel("vadd")});
  auto r = run(runner, request);
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(outcomes(r), (std::vector<branch_outcome>{branch_outcome::incorrect, branch_outcome::incorrect,
                                                      branch_outcome::incorrect, branch_outcome::passed}));
  const auto& nothing = r.kernels[0];
  ASSERT_TRUE(nothing.compare);
  EXPECT_EQ(nothing.compare->poisoned_elements, elements);
  EXPECT_EQ(nothing.compare->first_bad_index, std::optional<std::size_t>{0});
  EXPECT_EQ(nothing.arg, "c");
  EXPECT_EQ(nothing.seed, std::optional<std::uint64_t>{1234});
  const auto& half = r.kernels[1];
  ASSERT_TRUE(half.compare);
  EXPECT_EQ(half.compare->first_bad_index, std::optional<std::size_t>{elements / 2});
  EXPECT_EQ(half.compare->poisoned_elements, elements / 2);
  EXPECT_EQ(half.compare->first_bad_got_bits, 0x7FBADBADu) << "the poison pattern, read back";
  const auto& mutate = r.kernels[2];
  EXPECT_EQ(mutate.arg, "a");
  ASSERT_TRUE(mutate.input);
  EXPECT_EQ(mutate.input->first_difference, std::optional<std::size_t>{3 * sizeof(float)});
  expect_measured(r.kernels[3], request.timing);
  EXPECT_FALSE(r.runner_exits);
}

TEST(gpu_race, shared_memory_beyond_the_device_is_not_supported_and_the_opt_in_works) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto r = run(runner, race_of({kernel("smem_vadd", impossible_smem_bytes), kernel("smem_vadd", opt_in_smem_bytes)}));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].outcome, branch_outcome::not_supported);
  EXPECT_NE(r.kernels[0].detail.find("shared memory"), std::string::npos) << r.kernels[0].detail;
  EXPECT_EQ(r.kernels[1].outcome, branch_outcome::passed) << r.kernels[1].detail;
  EXPECT_FALSE(r.runner_exits);
}

TEST(gpu_race, a_fault_in_the_middle_ends_the_runner_naming_the_kernel) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto r = run(runner, race_of({kernel("vadd"), kernel("write_half"), kernel("illegal_address"), kernel("vadd")}));
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(outcomes(r), (std::vector<branch_outcome>{branch_outcome::not_run, branch_outcome::incorrect,
                                                      branch_outcome::runtime_error, branch_outcome::not_run}));
  EXPECT_NE(r.kernels[2].detail.find("IllegalAddress"), std::string::npos) << r.kernels[2].detail;
  EXPECT_EQ(r.ended_by, std::optional<std::size_t>{2});
  EXPECT_TRUE(r.runner_exits);
  EXPECT_EQ(wait_exit(runner), std::optional<int>{runner_exit_context_lost});
}

TEST(gpu_race, the_keeper_runs_what_a_fault_left_unfinished_on_a_fresh_runner) {
  REQUIRE_GPU();
  actors::runner_keeper_options options;
  options.runner.executable = test::runner_path();
  actors::runner_keeper keeper{options, [](const actors::runner_event& e) {
                                 std::cout << "runner event: pid " << e.pid << " " << e.reason << "\n";
                               }};
  auto request = race_of({kernel("vadd"), kernel("write_half"), kernel("illegal_address"), kernel("vadd_twice"),
                          kernel("trap"), kernel("vadd")});
  auto r = keeper.run(request, 60s);
  ASSERT_TRUE(r) << r.error().to_string();
  print(request, *r);
  EXPECT_EQ(outcomes(*r), (std::vector<branch_outcome>{branch_outcome::passed, branch_outcome::incorrect,
                                                       branch_outcome::runtime_error, branch_outcome::passed,
                                                       branch_outcome::runtime_error, branch_outcome::passed}));
  EXPECT_EQ(keeper.restarts(), 2u) << "a fresh runner after the illegal address and after the trap";
  EXPECT_FALSE(keeper.gave_up());
  keeper.stop();
}

// Profiles in one batch (profile_candidates) whose middle kernel fails: one that faults loses the
// context and ends the runner with the batch; one that cannot launch (more shared memory than the
// device has) loses nothing. Either way the keeper profiles the other two, asked again (of a fresh
// runner after the fault).
TEST(gpu_race, the_keeper_profiles_again_what_a_failing_kernel_left_of_its_batch) {
  REQUIRE_GPU();
  struct failing {
    kernel_launch launch;
    bool loses_context = false;
  };
  for (const auto& middle : {failing{kernel("illegal_address"), true}, failing{kernel("smem_vadd", impossible_smem_bytes), false}}) {
    SCOPED_TRACE(middle.launch.entry);
    actors::runner_keeper_options options;
    options.runner.executable = test::runner_path();
    actors::runner_keeper keeper{options, [](const actors::runner_event& e) {
                                   std::cout << "runner event: pid " << e.pid << " " << e.reason << "\n";
                                 }};
    std::vector<profile_request> batch;
    for (const auto& launch : {kernel("vadd"), middle.launch, kernel("vadd_twice")}) {
      profile_request p;
      p.run = race_of({launch});
      p.metrics = {"gpu__time_duration.sum"};
      p.replay = profile_replay::user;
      batch.push_back(std::move(p));
    }
    auto r = keeper.profile(batch, 60s);
    ASSERT_TRUE(r) << r.error().to_string();
    ASSERT_EQ(r->size(), 3u);
    for (std::size_t i = 0; i < r->size(); ++i)
      std::cout << batch[i].run.kernels[0].entry << ": " << to_string((*r)[i].status) << " " << (*r)[i].note << "\n";
    if ((*r)[0].status == profile_status::counters_unavailable)
      GTEST_SKIP() << (*r)[0].note;
    EXPECT_NE((*r)[1].status, profile_status::ok);
    EXPECT_EQ((*r)[1].runner_exits, middle.loses_context);
    for (std::size_t i : {0u, 2u}) {
      EXPECT_EQ((*r)[i].status, profile_status::ok) << (*r)[i].note;
      EXPECT_GT((*r)[i].values.count("gpu__time_duration.sum"), 0u) << (*r)[i].note;
    }
    EXPECT_EQ(keeper.restarts(), middle.loses_context ? 1u : 0u) << "a fresh runner only after a lost context";
    keeper.stop();
  }
}

TEST(gpu_race, a_hung_kernel_is_stopped_by_the_runners_watchdog_and_named) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto request = race_of({kernel("vadd"), kernel("spin"), kernel("vadd")});
  request.watchdog.floor_s = 1.0; // the reference takes microseconds: the floor applies
  auto start = std::chrono::steady_clock::now();
  auto result = runner.run_race(request, run_timeout);
  auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(result) << result.error().to_string();
  print(request, *result);
  EXPECT_EQ(outcomes(*result), (std::vector<branch_outcome>{branch_outcome::not_run, branch_outcome::timeout,
                                                            branch_outcome::not_run}));
  EXPECT_EQ(result->ended_by, std::optional<std::size_t>{1});
  EXPECT_TRUE(result->runner_exits);
  EXPECT_DOUBLE_EQ(result->watchdog_s, 1.0);
  EXPECT_LT(took, 20.0);
  // The runner exits with runner_exit_kernel_hung, but its exit waits on the driver to tear down a
  // context whose kernel still spins: when that outlasts stop()'s grace the runner is killed
  // (seen on an H100 in one run of two). Either way the process ends and the next one is fresh.
  const auto ended = runner.stop();
  EXPECT_TRUE(ended.exit_code == runner_exit_kernel_hung || ended.signal == SIGKILL) << ended.to_string();
  auto fresh = start_runner();
  auto again = run(fresh, race_of({kernel("vadd")}));
  ASSERT_EQ(again.kernels.size(), 1u);
  EXPECT_EQ(again.kernels[0].outcome, branch_outcome::passed);
}

TEST(gpu_race, a_runner_that_stops_answering_hits_the_client_deadline) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto request = race_of({kernel("spin")});
  request.watchdog.floor_s = 600; // the runner would wait: the client's deadline is the backstop
  auto result = runner.run_race(request, hang_timeout);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, runner_error_kind::reply_timeout) << result.error().to_string();
  EXPECT_FALSE(runner.running());
}

TEST(gpu_race, inputs_and_reference_outputs_are_made_once_per_problem_and_seed) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto first = run(runner, race_of({kernel("vadd")}));
  EXPECT_GT(first.inputs_s, 0.0);
  EXPECT_GT(first.reference_wall_s, 0.0);
  auto second = run(runner, race_of({kernel("vadd_twice")}));
  EXPECT_EQ(second.inputs_s, 0.0) << "the same problem and seeds: inputs reused";
  EXPECT_EQ(second.reference_wall_s, 0.0) << "the same reference: its outputs reused";
  EXPECT_EQ(second.setup_s, 0.0) << "the check kernels are built once per runner";
  EXPECT_EQ(second.reference_s, first.reference_s);
  EXPECT_EQ(second.kernels.at(0).outcome, branch_outcome::passed);
  auto other = run(runner, race_of({kernel("vadd")}, elements / 2)); // another problem
  EXPECT_GT(other.inputs_s, 0.0);
  EXPECT_GT(other.reference_wall_s, 0.0);
  auto back = run(runner, race_of({kernel("vadd")}));
  EXPECT_GT(back.inputs_s, 0.0) << "the other problem replaced this one's buffers";
  EXPECT_EQ(back.kernels.at(0).outcome, branch_outcome::passed);
}

// Program mode on the GPU: a whole CUDA program built by nvcc, run pinned, read by its RESULT lines.
constexpr auto probe_program = R"(#include <cstdio>
#include <cuda_runtime.h>
__global__ void busy(float* x) { x[threadIdx.x] = x[threadIdx.x] * 2.0f + 1.0f; }
int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) { std::fprintf(stderr, "no device\n"); return 2; }
  float* x = nullptr;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a); busy<<<1, 256>>>(x); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms = 0; cudaEventElapsedTime(&ms, a, b);
  std::printf("RESULT: visible_devices=%d kernel_ms=%g\n", devices, ms);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
)";

TEST(gpu_race, a_program_built_by_nvcc_runs_pinned_and_reports_its_results) {
  REQUIRE_GPU();
  auto compiler = program_compiler::from_toolchain(compile_cache{env().dir / "program-cache"});
  ASSERT_TRUE(compiler) << compiler.error().log;
  compile_request request;
  request.source = probe_program;
  request.source_name = "probe.cu";
  request.arch = env().arch;
  auto built = compiler->compile(request);
  ASSERT_TRUE(built) << built.error().log;

  program_run_options options;
  options.executable = built->executable;
  options.visible_devices = "0";
  options.trials = 3;
  options.watchdog = 60s;
  options.output_dir = env().dir / "program-out";
  auto report = run_program(options);
  ASSERT_TRUE(report) << report.error().detail;
  for (const auto& trial : report->trials)
    std::printf("program trial: %s %s | %s", std::string{to_string(trial.outcome)}.c_str(),
                trial.detail.c_str(), trial.output_tail.c_str());
  EXPECT_EQ(report->passed, 3u);
  ASSERT_TRUE(report->results.count("visible_devices"));
  EXPECT_EQ(report->results.at("visible_devices").max_s, 1.0) << "pinned to one GPU";
  EXPECT_GT(report->results.at("kernel_ms").median_s, 0.0);
}
