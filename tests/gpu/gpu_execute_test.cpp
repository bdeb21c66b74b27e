// Needs a GPU (ctest -L gpu): the real warpforge-runner executes NVRTC-compiled kernels, good
// and broken, through run_candidate. Skips without a usable GPU.
#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/program_run.hpp"
#include "gpu/runner/runner_client.hpp"
#include "gpu/runtime/execute.hpp"
#include "tests/gpu/test_paths.hpp"

#include <gtest/gtest.h>

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

namespace {

constexpr std::uint32_t elements = 1u << 22;    // 16 MiB per f32 buffer
constexpr std::uint32_t threads_per_block = 256;
constexpr std::uint32_t opt_in_smem_bytes = 100 * 1024; // > 48 KiB: needs the opt-in
constexpr std::uint32_t impossible_smem_bytes = 1024 * 1024; // more than any GPU gives a block
constexpr auto run_timeout = 60s;
constexpr auto hang_timeout = 3s;

constexpr const char* kernels = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
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
    runner_options options;
    options.executable = test::runner_path();
    auto runner = runner_client::start(options);
    if (!runner) {
      out.why = runner.error().to_string();
      return out;
    }
    auto report = runner->device_query();
    if (!report || report->status != gpu_status::ok || report->devices.empty()) {
      out.why = report ? report->reason : report.error().to_string();
      return out;
    }
    compile_request request;
    request.source = kernels;
    request.entry = "vadd";
    request.arch = report->devices[0].arch();
    out.arch = request.arch;
    auto compiled = compile_kernel(request);
    if (!compiled) {
      out.why = "compile failed: " + compiled.error().log;
      return out;
    }
    out.dir = fs::temp_directory_path() / ("warpforge-exec-test-" + std::to_string(::getpid()));
    fs::create_directories(out.dir);
    out.cubin = out.dir / "kernels.cubin";
    std::ofstream file{out.cubin, std::ios::binary};
    file.write(reinterpret_cast<const char*>(compiled->cubin.data()),
               static_cast<std::streamsize>(compiled->cubin.size()));
    out.usable = file.good();
    std::cout << "GPU: " << report->devices[0].name << " (" << request.arch << "), CUBIN "
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

candidate_request request_for(const std::string& entry, std::uint32_t smem = 0) {
  candidate_request r;
  r.candidate = {env().cubin, entry, geometry(smem)};
  r.reference = kernel_launch{env().cubin, "vadd", geometry()};
  config::tolerance tol{1e-6, 1e-6};
  r.args.emplace_back(candidate_buffer_arg{"a", config::dtype::f32, elements,
                                           config::arg_role::input, {}, tol});
  r.args.emplace_back(candidate_buffer_arg{"b", config::dtype::f32, elements,
                                           config::arg_role::input, {}, tol});
  r.args.emplace_back(candidate_buffer_arg{"c", config::dtype::f32, elements,
                                           config::arg_role::output, {}, tol});
  r.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i32, std::int64_t{elements}});
  r.seeds = {1234, 1235};
  r.timing.min_time_s = 0.05; // keep the suite short
  r.timing.max_time_s = 2.0;
  return r;
}

runner_client start_runner() {
  runner_options options;
  options.executable = test::runner_path();
  auto runner = runner_client::start(options);
  EXPECT_TRUE(runner) << runner.error().to_string();
  return std::move(*runner);
}

void print(const std::string& what, const candidate_result& r) {
  std::cout << what << ": " << to_string(r.outcome) << " | " << r.detail;
  if (r.outcome == vocabulary::branch_outcome::passed)
    std::cout << " | samples " << r.stats.count << ", median " << r.stats.median_s * 1e6
              << " us, mean " << r.stats.mean_s * 1e6 << " us, cv " << r.stats.cv << ", min "
              << r.stats.min_s * 1e6 << " us, median CI [" << r.stats.median_ci.low * 1e6 << ", "
              << r.stats.median_ci.high * 1e6 << "] us, stop " << to_string(r.decision)
              << ", wall " << r.wall_s << " s, SM clock " << r.sm_clock_hz_before / 1e6 << " -> "
              << r.sm_clock_hz_after / 1e6 << " MHz";
  for (const auto& note : r.notes)
    std::cout << " | note: " << note;
  std::cout << "\n";
}

candidate_result run(runner_client& runner, const candidate_request& request, const std::string& what) {
  auto result = runner.run_candidate(request, run_timeout);
  EXPECT_TRUE(result) << result.error().to_string();
  if (!result)
    return {};
  print(what, *result);
  return *result;
}

void expect_good_kernel_measured(runner_client& runner, vocabulary::timing_mode mode = vocabulary::timing_mode::warm) {
  auto request = request_for("vadd");
  request.mode = mode;
  auto r = run(runner, request, std::string{"vadd ("} + std::string{to_string(mode)} + ")");
  EXPECT_EQ(r.outcome, vocabulary::branch_outcome::passed) << r.detail;
  EXPECT_GE(r.stats.count, request.timing.min_samples);
  EXPECT_GT(r.stats.median_s, 0.0);
  // A stable median (outliers, e.g. right after another process lost its context, move the mean
  // and the CV, not the median): its 95% interval within 5% of it.
  EXPECT_LT((r.stats.median_ci.high - r.stats.median_ci.low) / r.stats.median_s, 0.05);
  EXPECT_TRUE(is_final(r.decision));
}

// Waits for a runner that announced its exit; returns its exit code.
std::optional<int> wait_exit(runner_client& runner) {
  for (int i = 0; i < 50 && runner.running(); ++i)
    std::this_thread::sleep_for(100ms);
  return runner.stop().exit_code;
}

#define REQUIRE_GPU()                                                                              \
  if (!env().usable)                                                                               \
  GTEST_SKIP() << "no usable GPU: " << env().why

} // namespace

TEST(gpu_execute, a_correct_vector_add_passes_and_is_timed_warm_and_cold) {
  REQUIRE_GPU();
  auto runner = start_runner();
  expect_good_kernel_measured(runner, vocabulary::timing_mode::warm);
  expect_good_kernel_measured(runner, vocabulary::timing_mode::cold);
  EXPECT_EQ(runner.stop().exit_code, 0);
}

TEST(gpu_execute, opting_in_to_large_dynamic_shared_memory_works) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto r = run(runner, request_for("smem_vadd", opt_in_smem_bytes), "smem_vadd 100 KiB");
  EXPECT_EQ(r.outcome, vocabulary::branch_outcome::passed) << r.detail;
}

TEST(gpu_execute, broken_outputs_and_inputs_are_incorrect) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto nothing = run(runner, request_for("write_nothing"), "write_nothing");
  EXPECT_EQ(nothing.outcome, vocabulary::branch_outcome::incorrect);
  ASSERT_TRUE(nothing.compare);
  EXPECT_EQ(nothing.compare->poisoned_elements, elements);
  EXPECT_EQ(nothing.arg, "c");

  auto half = run(runner, request_for("write_half"), "write_half");
  EXPECT_EQ(half.outcome, vocabulary::branch_outcome::incorrect);
  ASSERT_TRUE(half.compare);
  EXPECT_EQ(half.compare->first_bad_index, std::optional<std::size_t>{elements / 2});
  EXPECT_EQ(half.compare->poisoned_elements, elements / 2);

  auto mutate = run(runner, request_for("mutate_input"), "mutate_input");
  EXPECT_EQ(mutate.outcome, vocabulary::branch_outcome::incorrect);
  EXPECT_EQ(mutate.arg, "a");
  ASSERT_TRUE(mutate.input);
  EXPECT_EQ(mutate.input->first_difference, std::optional<std::size_t>{3 * sizeof(float)});
  EXPECT_FALSE(mutate.runner_exits);
  expect_good_kernel_measured(runner); // the runner is still fine
}

TEST(gpu_execute, too_much_shared_memory_is_not_supported) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto r = run(runner, request_for("smem_vadd", impossible_smem_bytes), "smem_vadd 1 MiB");
  EXPECT_EQ(r.outcome, vocabulary::branch_outcome::not_supported);
  EXPECT_NE(r.detail.find("shared memory"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.runner_exits);
}

TEST(gpu_execute, an_illegal_address_ends_the_runner_and_a_new_one_measures_fine) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto r = run(runner, request_for("illegal_address"), "illegal_address");
  EXPECT_EQ(r.outcome, vocabulary::branch_outcome::runtime_error);
  EXPECT_NE(r.detail.find("IllegalAddress"), std::string::npos) << r.detail; // cudaError name
  EXPECT_TRUE(r.runner_exits);
  EXPECT_EQ(wait_exit(runner), std::optional<int>{5} /* runner_exit_context_lost */);
  auto fresh = start_runner();
  expect_good_kernel_measured(fresh);
}

TEST(gpu_execute, a_trap_is_a_runtime_error) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto r = run(runner, request_for("trap"), "trap");
  EXPECT_EQ(r.outcome, vocabulary::branch_outcome::runtime_error);
  EXPECT_FALSE(r.detail.empty());
  EXPECT_TRUE(r.runner_exits);
  EXPECT_EQ(wait_exit(runner), std::optional<int>{5} /* runner_exit_context_lost */);
}

TEST(gpu_execute, a_hung_kernel_is_stopped_by_the_runners_watchdog_and_a_fresh_runner_measures_fine) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto request = request_for("spin");
  request.watchdog.floor_s = 1.0; // the reference takes microseconds: the floor applies
  auto start = std::chrono::steady_clock::now();
  auto result = runner.run_candidate(request, run_timeout);
  auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(result) << result.error().to_string();
  print("spin", *result);
  EXPECT_EQ(result->outcome, vocabulary::branch_outcome::timeout);
  EXPECT_TRUE(result->runner_exits);
  EXPECT_DOUBLE_EQ(result->watchdog_s, 1.0);
  EXPECT_LT(took, 10.0);
  const auto ended = runner.stop();
  EXPECT_EQ(ended.exit_code, runner_exit_kernel_hung) << ended.to_string();
  std::cout << "spin: timeout by the runner's kernel watchdog after " << took << " s, runner "
            << ended.to_string() << "\n";
  auto fresh = start_runner();
  expect_good_kernel_measured(fresh);
}

TEST(gpu_execute, a_runner_that_stops_answering_hits_the_client_deadline) {
  REQUIRE_GPU();
  auto runner = start_runner();
  auto request = request_for("spin");
  request.watchdog.floor_s = 600; // the runner would wait: the client's deadline is the backstop
  auto start = std::chrono::steady_clock::now();
  auto result = runner.run_candidate(request, hang_timeout);
  auto took = std::chrono::steady_clock::now() - start;
  if (result)
    print("spin (unexpectedly answered)", *result);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, runner_error_kind::reply_timeout) << result.error().to_string();
  EXPECT_FALSE(runner.running());
  std::cout << "spin: " << to_string(result.error().kind) << " after "
            << std::chrono::duration<double>(took).count() << " s\n";
  auto fresh = start_runner();
  expect_good_kernel_measured(fresh);
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

TEST(gpu_execute, a_program_built_by_nvcc_runs_pinned_and_reports_its_results) {
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
