// The injection library on a GPU: runs observed_program (a real CUDA program, unmodified) with
// CUDA_INJECTION64_PATH naming the library, and checks the launch log it leaves against what the
// program launched (observed_program.hpp). Skips where the program finds no usable GPU.
//
// Paths: the program and the library default to the build tree; WARPFORGE_OBSERVE_TEST_PROGRAM
// and WARPFORGE_OBSERVE_INJECT override them (to run from copies carried to a GPU machine).

#include "deploy/observe/launches/launch_log.hpp"
#include "gpu/runner/child_process.hpp"
#include "observed_program.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace warpforge::observe;
namespace fs = std::filesystem;

namespace {

constexpr std::chrono::seconds program_timeout{120};

fs::path from_env_or(const char* variable, const char* build_path) {
  const char* value = std::getenv(variable);
  return value && *value ? fs::path(value) : fs::path(build_path);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct observed_result {
  bool no_gpu = false;
  std::string failure;  // why the run could not be read ("" = fine)
  launch_log log;
  std::string output;   // the program's stdout+stderr
};

/// Runs the program under the library once; `kernel` is WARPFORGE_OBSERVE_KERNEL ("" = unset).
observed_result run_observed_program(const std::string& kernel) {
  observed_result result;
  fs::path program = from_env_or("WARPFORGE_OBSERVE_TEST_PROGRAM", WARPFORGE_OBSERVE_TEST_PROGRAM_PATH);
  fs::path library = from_env_or("WARPFORGE_OBSERVE_INJECT", WARPFORGE_OBSERVE_INJECT_BUILD_PATH);
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::temp_directory_path() /
                 ("warpforge-inject-" + std::to_string(::getpid()) + "-" + test->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path log_path = dir / "launches.jsonl";
  warpforge::gpu::spawn_options options;
  options.executable = program;
  options.output_file = dir / "output.txt";
  options.environment = {{"CUDA_INJECTION64_PATH", fs::absolute(library).string()},
                         {"WARPFORGE_OBSERVE_OUT", log_path.string()},
                         {"WARPFORGE_OBSERVE_KERNEL", kernel}};
  auto child = warpforge::gpu::child_process::spawn(options);
  if (!child) return {false, "spawn " + program.string() + ": " + child.error().detail, {}, {}};
  auto exit = child->wait_for_exit(program_timeout);
  if (!exit) exit = child->kill_and_reap();
  result.output = read_text(options.output_file);
  if (exit->exit_code == observed_program::no_gpu_exit_code) {
    result.no_gpu = true;
    return result;
  }
  if (exit->exit_code != 0) {
    result.failure = program.string() + " ended with " + exit->to_string() + ":\n" + result.output;
    return result;
  }
  auto log = read_launch_log(log_path);
  if (!log) result.failure = log.error() + "\nprogram output:\n" + result.output;
  else result.log = std::move(*log);
  return result;
}

std::string describe(const launch_log& log) {
  std::string text = "notes:";
  for (const std::string& note : log.notes) text += "\n  " + note;
  return text;
}

std::vector<launch_record> launches_of(const launch_log& log, std::string_view kernel) {
  std::vector<launch_record> out;
  for (const launch_record& record : log.launches)
    if (matches_kernel(record, kernel)) out.push_back(record);
  return out;
}

} // namespace

TEST(inject_gpu, every_launch_is_recorded_with_its_geometry_scalars_and_duration) {
  observed_result run = run_observed_program("");
  if (run.no_gpu) GTEST_SKIP() << "no usable GPU: " << run.output;
  ASSERT_EQ(run.failure, "");
  const launch_log& log = run.log;
  EXPECT_TRUE(log.complete) << describe(log);
  EXPECT_EQ(log.dropped, 0u) << describe(log);
  ASSERT_EQ(log.launches.size(), observed_program::driver_repeats + 3u * observed_program::scale_repeats)
      << describe(log);
  for (std::size_t i = 0; i < log.launches.size(); ++i) {
    EXPECT_EQ(log.launches[i].sequence, i) << "launches are numbered in launch order";
    EXPECT_GT(log.launches[i].duration_s, 0.0) << log.launches[i].kernel;
  }

  auto driver = launches_of(log, "add_offset");
  ASSERT_EQ(driver.size(), static_cast<std::size_t>(observed_program::driver_repeats)) << describe(log);
  for (const launch_record& record : driver) {
    EXPECT_EQ(record.kernel, "add_offset");
    EXPECT_EQ(record.demangled, "add_offset");
    EXPECT_EQ(record.grid, (std::array<std::uint32_t, 3>{observed_program::driver_grid, 1, 1}));
    EXPECT_EQ(record.block, (std::array<std::uint32_t, 3>{observed_program::driver_block, 1, 1}));
    EXPECT_EQ(record.dynamic_smem, observed_program::driver_dynamic_smem);
    ASSERT_EQ(record.params.size(), 3u) << describe(log);
    EXPECT_EQ(record.params[0].size, 8u);
    EXPECT_NE(as_unsigned(record.params[0]), 0u) << "a device pointer";
    EXPECT_EQ(as_signed(record.params[1]), observed_program::driver_n);
    EXPECT_EQ(record.params[2].offset, 16u);
    EXPECT_EQ(as_signed(record.params[2]), observed_program::driver_offset);
  }

  auto runtime = launches_of(log, "scale");
  ASSERT_EQ(runtime.size(), 3u * observed_program::scale_repeats) << describe(log);
  for (std::size_t i = 0; i < runtime.size(); ++i) {
    const launch_record& record = runtime[i];
    const auto& expected = observed_program::scale_geometries[i / observed_program::scale_repeats];
    EXPECT_THAT(record.kernel, ::testing::StartsWith("_Z5scaleIfE"));
    EXPECT_EQ(record.demangled, "void scale<float>(float*, int, float)");
    EXPECT_EQ(record.grid, (std::array<std::uint32_t, 3>{expected.grid[0], expected.grid[1], expected.grid[2]}));
    EXPECT_EQ(record.block, (std::array<std::uint32_t, 3>{expected.block[0], expected.block[1], expected.block[2]}));
    EXPECT_EQ(record.dynamic_smem, expected.dynamic_smem);
    ASSERT_EQ(record.params.size(), 3u) << "launch " << record.sequence << "; " << describe(log);
    EXPECT_EQ(as_signed(record.params[1]), expected.n);
    EXPECT_EQ(as_float(record.params[2]), static_cast<double>(expected.factor));
  }
}

TEST(inject_gpu, the_kernel_filter_keeps_only_the_named_kernel_and_launch_order) {
  observed_result run = run_observed_program("scale");
  if (run.no_gpu) GTEST_SKIP() << "no usable GPU: " << run.output;
  ASSERT_EQ(run.failure, "");
  const launch_log& log = run.log;
  EXPECT_TRUE(log.complete) << describe(log);
  ASSERT_EQ(log.launches.size(), 3u * observed_program::scale_repeats) << describe(log);
  for (const launch_record& record : log.launches)
    EXPECT_EQ(record.demangled, "void scale<float>(float*, int, float)");
  // Sequence numbers count every launch of the program: add_offset's came first.
  EXPECT_EQ(log.launches.front().sequence, static_cast<std::uint64_t>(observed_program::driver_repeats));
}

TEST(inject_gpu, a_log_that_cannot_be_written_leaves_the_program_running_unobserved) {
  // The library must never break the program: when it cannot create its log it says so on
  // stderr, records nothing, and the program still computes right (exit 0).
  fs::path program = from_env_or("WARPFORGE_OBSERVE_TEST_PROGRAM", WARPFORGE_OBSERVE_TEST_PROGRAM_PATH);
  fs::path library = from_env_or("WARPFORGE_OBSERVE_INJECT", WARPFORGE_OBSERVE_INJECT_BUILD_PATH);
  fs::path output = fs::temp_directory_path() / ("warpforge-inject-unobserved-" + std::to_string(::getpid()) + ".txt");
  warpforge::gpu::spawn_options options;
  options.executable = program;
  options.output_file = output;
  options.environment = {{"CUDA_INJECTION64_PATH", fs::absolute(library).string()},
                         {"WARPFORGE_OBSERVE_OUT", "/nonexistent-folder/launches.jsonl"}};
  auto child = warpforge::gpu::child_process::spawn(options);
  ASSERT_TRUE(child) << child.error().detail;
  auto exit = child->wait_for_exit(program_timeout);
  if (!exit) exit = child->kill_and_reap();
  std::string text = read_text(output);
  fs::remove(output);
  if (exit->exit_code == observed_program::no_gpu_exit_code) GTEST_SKIP() << "no usable GPU: " << text;
  EXPECT_EQ(exit->exit_code, 0) << text;
  EXPECT_THAT(text, ::testing::HasSubstr("cannot write the launch log"));
  EXPECT_THAT(text, ::testing::HasSubstr("observed_program: ok"));
}
