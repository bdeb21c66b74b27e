// Needs a GPU (ctest -L gpu): profile_candidate through the real warpforge-runner (CUPTI range
// profiler), and the ncu fallback around `warpforge-runner --execute`, on examples/vector_add's
// kernel. Skips without a usable GPU; the CUPTI tests skip when the driver restricts counters
// (and the restricted path is checked instead), the ncu test when ncu is not installed.
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/ncu_profile.hpp"
#include "gpu/runner/runner_client.hpp"
#include "gpu/toolchain.hpp"
#include "tests/gpu/first_gpu.hpp"
#include "tests/gpu/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <unistd.h>

using namespace warpforge;
using namespace warpforge::gpu;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace warpforge::embedded {
extern const std::string_view vector_add_kernel_source; // examples/vector_add/kernel.cu
}

namespace {

constexpr std::uint32_t gpu_profile_elements = 1u << 24; // examples/vector_add's N: 64 MiB per f32 buffer
constexpr std::uint32_t threads_per_block = 256;
constexpr auto profile_timeout = 120s;
constexpr auto dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr auto sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr auto duration = "gpu__time_duration.sum";
constexpr auto stall = "smsp__average_warp_latency_issue_stalled_long_scoreboard";
constexpr auto bogus = "warpforge__no_such_metric.sum";

struct environment {
  bool usable = false;
  std::string why;
  counter_access access = counter_access::unknown;
  std::string access_reason;
  fs::path dir;
  fs::path cubin;
};

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, {}};
}

environment& env() {
  static environment e = [] {
    environment out;
    auto gpu = test::first_gpu();
    if (!gpu) {
      out.why = gpu.error();
      return out;
    }
    out.access = gpu->counters;
    out.access_reason = gpu->counter_reason;
    compile_request request;
    request.source = std::string{embedded::vector_add_kernel_source};
    request.entry = "vector_add";
    request.arch = gpu->arch();
    request.defines.push_back({"BLOCK", std::to_string(threads_per_block)});
    auto compiled = compile_kernel(request);
    if (!compiled) {
      out.why = "compile failed: " + compiled.error().log;
      return out;
    }
    out.dir = fs::temp_directory_path() / ("warpforge-profile-test-" + std::to_string(::getpid()));
    fs::create_directories(out.dir);
    out.cubin = out.dir / "vector_add.cubin";
    std::ofstream file{out.cubin, std::ios::binary};
    file.write(reinterpret_cast<const char*>(compiled->cubin.data()),
               static_cast<std::streamsize>(compiled->cubin.size()));
    out.usable = file.good();
    std::cout << "GPU: " << gpu->name << " (" << request.arch
              << "), counters: " << to_string(out.access) << " (" << out.access_reason << ")\n";
    return out;
  }();
  return e;
}

profile_request vector_add_profile(std::vector<std::string> metrics,
                                   profile_replay replay = profile_replay::kernel,
                                   std::uint32_t elements = gpu_profile_elements) {
  profile_request r;
  config::launch_geometry g{{elements / threads_per_block, 1, 1}, {threads_per_block, 1, 1}, 0};
  r.run.kernels = {{env().cubin, "vector_add", g}};
  r.run.reference = r.run.kernels.front();
  config::init_spec uniform;
  uniform.kind = config::init_kind::uniform;
  r.run.args.emplace_back(candidate_buffer_arg{"a", config::dtype::f32, elements,
                                               config::arg_role::input, uniform, {}});
  r.run.args.emplace_back(candidate_buffer_arg{"b", config::dtype::f32, elements,
                                               config::arg_role::input, {}, {}});
  r.run.args.emplace_back(candidate_buffer_arg{"c", config::dtype::f32, elements,
                                               config::arg_role::output, {}, {1e-6, 1e-6}});
  r.run.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i32, std::int64_t{elements}});
  r.run.seeds = {1234, 1235};
  r.run.timing.max_time_s = 2.0;
  r.metrics = std::move(metrics);
  r.replay = replay;
  return r;
}

runner_client start_runner() {
  runner_options options;
  options.executable = test::runner_path();
  auto runner = runner_client::start(options);
  EXPECT_TRUE(runner) << runner.error().to_string();
  return std::move(*runner);
}

void print(const std::string& what, const profile_result& r) {
  std::cout << what << ": " << to_string(r.status) << " (" << to_string(r.source) << ", "
            << to_string(r.replay) << " replay, " << r.passes << " passes) " << r.note << "\n";
  for (const auto& [name, value] : r.values)
    std::cout << "  " << name << " = " << value << "\n";
  for (const auto& [name, why] : r.missing)
    std::cout << "  " << name << ": missing: " << why << "\n";
}

profile_result profile(runner_client& runner, const profile_request& request,
                       const std::string& what) {
  auto result = runner.profile(request, profile_timeout);
  EXPECT_TRUE(result) << result.error().to_string();
  if (!result)
    return {};
  print(what, *result);
  return *result;
}

void expect_plausible_vector_add(const profile_result& r) {
  ASSERT_EQ(r.status, profile_status::ok) << r.note;
  ASSERT_TRUE(r.values.count(dram)) << r.note;
  ASSERT_TRUE(r.values.count(duration)) << r.note;
  EXPECT_GT(r.values.at(dram), 10.0) << "a streaming add should load DRAM well";
  EXPECT_LE(r.values.at(dram), 100.0);
  EXPECT_GT(r.values.at(duration), 0.0);
  EXPECT_GE(r.passes, 1u);
  EXPECT_FALSE(r.runner_exits);
}

#define REQUIRE_GPU()                                                                              \
  if (!env().usable)                                                                               \
  GTEST_SKIP() << "no usable GPU: " << env().why

#define REQUIRE_COUNTERS()                                                                         \
  REQUIRE_GPU();                                                                                   \
  if (env().access == counter_access::restricted_admin_only)                                      \
  GTEST_SKIP() << "counters restricted here: " << env().access_reason

} // namespace

TEST(gpu_profile, vector_add_under_kernel_replay_loads_dram_and_takes_time) {
  REQUIRE_COUNTERS();
  auto runner = start_runner();
  auto r = profile(runner, vector_add_profile({dram, sm, duration, stall, bogus}), "kernel replay");
  if (r.status == profile_status::counters_unavailable)
    GTEST_SKIP() << r.note;
  expect_plausible_vector_add(r);
  EXPECT_EQ(r.source, metric_source::cupti);
  ASSERT_TRUE(r.missing.count(bogus)) << "an unknown metric is reported, not fatal";
  EXPECT_NE(r.missing.at(bogus).find("not a metric"), std::string::npos) << r.missing.at(bogus);
  EXPECT_TRUE(r.values.count(sm));
  EXPECT_EQ(runner.stop().exit_code, 0);
}

TEST(gpu_profile, user_replay_agrees_with_kernel_replay) {
  REQUIRE_COUNTERS();
  auto runner = start_runner();
  auto kernel = profile(runner, vector_add_profile({dram, duration, sm}), "kernel replay");
  auto user = profile(runner, vector_add_profile({dram, duration, sm}, profile_replay::user),
                      "user replay");
  if (user.status == profile_status::counters_unavailable)
    GTEST_SKIP() << user.note;
  expect_plausible_vector_add(user);
  EXPECT_EQ(user.replay, profile_replay::user);
  if (kernel.status == profile_status::ok && user.status == profile_status::ok) {
    double ratio = user.values.at(duration) / kernel.values.at(duration);
    EXPECT_GT(ratio, 0.5);
    EXPECT_LT(ratio, 2.0);
  }
}

TEST(gpu_profile, only_unknown_metrics_is_not_supported_and_names_each) {
  REQUIRE_COUNTERS();
  auto runner = start_runner();
  auto r = profile(runner, vector_add_profile({bogus, "l1tex__nope.avg"}), "unknown metrics");
  if (r.status == profile_status::counters_unavailable)
    GTEST_SKIP() << r.note;
  EXPECT_EQ(r.status, profile_status::not_supported) << r.note;
  EXPECT_EQ(r.missing.size(), 2u);
  EXPECT_TRUE(r.values.empty());
}

TEST(gpu_profile, the_runner_still_measures_after_profiling) {
  REQUIRE_COUNTERS();
  auto runner = start_runner();
  auto request = vector_add_profile({dram, duration});
  auto profiled = profile(runner, request, "before run_race");
  auto timed = runner.run_race(request.run, 60s);
  ASSERT_TRUE(timed) << timed.error().to_string();
  const auto& kernel = timed->kernels.at(0);
  EXPECT_EQ(kernel.outcome, vocabulary::branch_outcome::passed) << kernel.detail;
  EXPECT_GT(kernel.stats.median_s, 0.0);
  if (profiled.status == profile_status::ok)
    std::cout << "event median " << kernel.stats.median_s * 1e9 << " ns vs profiled "
              << profiled.values.at(duration) << " ns\n";
  auto again = profile(runner, request, "after run_race");
  EXPECT_EQ(again.status, profiled.status) << again.note;
}

TEST(gpu_profile, restricted_counters_are_answered_with_counters_unavailable) {
  REQUIRE_GPU();
  if (env().access != counter_access::restricted_admin_only)
    GTEST_SKIP() << "counters are readable here (" << to_string(env().access)
                 << "); the restricted path runs on a host with RmProfilingAdminOnly=1 as non-root";
  auto runner = start_runner();
  auto r = profile(runner, vector_add_profile({dram, duration}), "restricted");
  EXPECT_EQ(r.status, profile_status::counters_unavailable) << r.note;
  EXPECT_NE(r.note.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << r.note;
  EXPECT_TRUE(r.values.empty());
  EXPECT_EQ(runner.stop().exit_code, 0); // an answer, not a crash
}

TEST(gpu_profile, the_one_shot_runner_launches_kernel_0_and_exits_0) {
  REQUIRE_GPU();
  auto file = env().dir / "execute.json";
  std::ofstream{file} << encode_body(vector_add_profile({duration}).run);
  spawn_options spawn;
  spawn.executable = test::runner_path();
  spawn.arguments = {"--execute", file.string()};
  spawn.output_file = env().dir / "execute.log";
  auto child = child_process::spawn(spawn);
  ASSERT_TRUE(child) << child.error().detail;
  auto exit = child->wait_for_exit(60s);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, std::optional<int>{0}) << read_text(spawn.output_file);
}

TEST(gpu_profile, ncu_around_the_one_shot_runner_agrees_with_cupti) {
  REQUIRE_GPU();
  auto toolchain = probe_toolchain();
  const auto& ncu = toolchain.find(cuda_tool::ncu);
  if (!ncu.path)
    GTEST_SKIP() << "ncu not found on PATH or in " << toolchain.cuda_home;
  ncu_options options;
  options.ncu = *ncu.path;
  options.runner = test::runner_path();
  options.work_dir = env().dir / "ncu";
  auto request = vector_add_profile({dram, duration, sm, bogus});
  auto via_ncu = profile_with_ncu(request, options);
  print("ncu", via_ncu);
  std::cout << "ncu's CSV (" << (options.work_dir / ncu_csv_file_name).string() << "):\n"
            << read_text(options.work_dir / ncu_csv_file_name) << "ncu's output:\n"
            << read_text(options.work_dir / ncu_output_file_name);
  if (via_ncu.status == profile_status::counters_unavailable)
    GTEST_SKIP() << via_ncu.note;
  expect_plausible_vector_add(via_ncu);
  EXPECT_EQ(via_ncu.source, metric_source::ncu);
  EXPECT_TRUE(via_ncu.missing.count(bogus));

  if (env().access == counter_access::restricted_admin_only)
    return;
  auto runner = start_runner();
  auto via_cupti = profile(runner, vector_add_profile({dram, duration, sm}), "cupti");
  if (via_cupti.status != profile_status::ok)
    return;
  double ratio = via_ncu.values.at(duration) / via_cupti.values.at(duration);
  EXPECT_GT(ratio, 0.5) << "ncu and CUPTI time the same launch";
  EXPECT_LT(ratio, 2.0);
}

// A batch (profile_candidates): kernels of different problems in one range profiler session.
// Each gets its own launch's counters: a range mixed up with another kernel's, or with the L2
// eviction's read sweep, would read another size's DRAM bytes.
TEST(gpu_profile, a_batch_gives_each_kernel_its_own_counters_as_alone) {
  REQUIRE_COUNTERS();
  constexpr auto read = "dram__bytes_read.sum";
  const std::vector<std::string> metrics{dram, duration, read, "launch__grid_size"};
  const std::vector<profile_request> batch{vector_add_profile(metrics, profile_replay::user, 1u << 24),
                                           vector_add_profile(metrics, profile_replay::user, 1u << 22),
                                           vector_add_profile(metrics, profile_replay::user, 1u << 23)};
  auto runner = start_runner();
  std::vector<profile_result> alone;
  for (std::size_t i = 0; i < batch.size(); ++i)
    alone.push_back(profile(runner, batch[i], "alone " + std::to_string(i)));
  if (alone.front().status == profile_status::counters_unavailable)
    GTEST_SKIP() << alone.front().note;
  auto together = runner.profile(batch, profile_timeout);
  ASSERT_TRUE(together) << together.error().to_string();
  ASSERT_EQ(together->size(), batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto& r = (*together)[i];
    print("in the batch " + std::to_string(i), r);
    ASSERT_EQ(r.status, profile_status::ok) << r.note;
    ASSERT_EQ(alone[i].status, profile_status::ok) << alone[i].note;
    EXPECT_NE(r.note.find("profiled in one batch of 3"), std::string::npos) << r.note;
    EXPECT_EQ(r.values.at("launch__grid_size"), alone[i].values.at("launch__grid_size"));
    // Two 4-byte inputs of `elements` each come from DRAM (the L2 was evicted, clean).
    const double elements = static_cast<double>(std::get<candidate_buffer_arg>(batch[i].run.args[0]).count);
    EXPECT_NEAR(r.values.at(read), 8 * elements, 0.1 * 8 * elements) << "kernel " << i;
    EXPECT_NEAR(r.values.at(read), alone[i].values.at(read), 0.1 * alone[i].values.at(read)) << "kernel " << i;
    const double ratio = r.values.at(duration) / alone[i].values.at(duration);
    EXPECT_GT(ratio, 0.7) << "kernel " << i;
    EXPECT_LT(ratio, 1.4) << "kernel " << i;
  }
  EXPECT_EQ(runner.stop().exit_code, 0);
}
