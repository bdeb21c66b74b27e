// Needs a GPU and ncu (ctest -L gpu): the runner's own launch__* attributes and smsp__sass_*
// aggregates (gpu/runtime/launch_attributes.hpp, sass_metrics.hpp) against Nsight Compute's on
// the same launch: examples/transpose (naive and shared-memory tiled), row_reduction and sgemm,
// and two fixtures, a kernel with a local-memory array and one with divergent branches. Prints
// one table row per kernel and metric, and the wall time of one profile through the runner's
// CUPTI and through ncu. The four Speed-of-light throughputs under user replay, sm__throughput read
// from some of its parts (gpu/runtime/throughput_parts.hpp), against ncu's whole ones on the same
// kernels. Skips without a GPU, without ncu, or with counters restricted.
//
// Examples are read from $WARPFORGE_EXAMPLES (default: the source tree's examples/), fixtures
// from $WARPFORGE_PROFILE_FIXTURES (default: tests/gpu/fixtures/profile_kernels/).

#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/ncu_profile.hpp"
#include "gpu/runner/runner_client.hpp"
#include "gpu/toolchain.hpp"
#include "tests/gpu/first_gpu.hpp"
#include "tests/gpu/test_paths.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace warpforge;
using namespace warpforge::gpu;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr auto profile_timeout = 300s;

const std::vector<std::string> launch_metrics{
  "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
  "launch__occupancy_limit_blocks",    "launch__registers_per_thread",       "launch__shared_mem_per_block_static",
  "launch__shared_mem_per_block_dynamic", "launch__grid_size",               "launch__block_size",
  "launch__waves_per_multiprocessor",
};
const std::vector<std::string> sass_metrics{
  "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
  "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
  "smsp__sass_inst_executed_op_local_ld.sum",
  "smsp__sass_inst_executed_op_local_st.sum",
  "smsp__sass_average_branch_targets_threads_uniform.pct",
};
// ncu's own view of what the comparison rests on, printed for the record (not compared).
const std::vector<std::string> ncu_context{"launch__shared_mem_config_size", "sm__maximum_warps_per_active_cycle_pct"};

// Percentage points within which a SASS ratio must agree: both count the same instructions of
// the same launch on the same inputs; ncu prints two decimals.
constexpr double ratio_tolerance_points = 0.01;
// Waves per SM: ncu prints two decimals.
constexpr double waves_tolerance = 0.005;

// The four Speed-of-light throughputs; the runner reads the first from its parts (throughput_parts.hpp).
const std::vector<std::string> speed_of_light{
  "sm__throughput.avg.pct_of_peak_sustained_elapsed",
  "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
  "l1tex__throughput.avg.pct_of_peak_sustained_active", "lts__throughput.avg.pct_of_peak_sustained_active"};
// Percentage points within which they must agree with ncu's: two profiles of the same launch,
// each replaying it, and for sm__throughput the parts left out of the runner's.
constexpr double speed_of_light_tolerance_points = 5.0;

std::string env_path(const char* name, const std::string& fallback) { return test::env_or(name, fallback.c_str()); }

struct gpu_env {
  bool usable = false;
  std::string why;
  std::string arch;
  std::optional<fs::path> ncu;
  fs::path dir;
};

gpu_env& env() {
  static gpu_env e = [] {
    gpu_env out;
    auto gpu = test::first_gpu();
    if (!gpu) {
      out.why = gpu.error();
      return out;
    }
    if (gpu->counters == counter_access::restricted_admin_only) {
      out.why = "counters restricted: " + gpu->counter_reason;
      return out;
    }
    auto toolchain = probe_toolchain();
    out.ncu = toolchain.find(cuda_tool::ncu).path;
    if (!out.ncu) {
      out.why = "ncu not found on PATH or in " + toolchain.cuda_home.string();
      return out;
    }
    out.arch = gpu->arch();
    out.dir = fs::temp_directory_path() / ("warpforge-profile-metrics-" + std::to_string(::getpid()));
    fs::create_directories(out.dir);
    out.usable = true;
    std::cout << "GPU: " << gpu->name << " (" << out.arch << "), ncu " << out.ncu->string() << "\n";
    return out;
  }();
  return e;
}

#define REQUIRE_GPU_AND_NCU()                                                                                    \
  do {                                                                                                           \
    if (!env().usable)                                                                                           \
      GTEST_SKIP() << env().why;                                                                                 \
  } while (false)

// The problem at `spec_path` at its default point with `overrides`, compiled for this GPU: a
// profile request for its kernel with `metrics`.
profile_request problem_request(const fs::path& spec_path, const config::tunable_point& overrides,
                                const std::string& label, std::vector<std::string> metrics) {
  auto spec = config::load_problem(spec_path);
  EXPECT_TRUE(spec) << spec_path;
  if (!spec)
    return {};
  auto point = config::default_point(*spec);
  for (const auto& [name, value] : overrides)
    point[name] = value;
  auto resolved = config::resolve_problem(*spec, point);
  EXPECT_TRUE(resolved) << resolved.error().message;
  if (!resolved)
    return {};
  compile_request compile;
  std::ifstream source{spec->kernel.source};
  compile.source.assign(std::istreambuf_iterator<char>{source}, {});
  compile.entry = resolved->entry;
  compile.arch = env().arch;
  for (const auto& define : resolved->defines) { // "-DNAME=value"
    const auto body = define.substr(2);
    const auto eq = body.find('=');
    compile.defines.push_back({body.substr(0, eq), eq == std::string::npos ? "" : body.substr(eq + 1)});
  }
  auto compiled = compile_kernel(compile);
  EXPECT_TRUE(compiled) << (compiled ? "" : compiled.error().log);
  if (!compiled)
    return {};
  const auto cubin = env().dir / (label + ".cubin");
  std::ofstream file{cubin, std::ios::binary};
  file.write(reinterpret_cast<const char*>(compiled->cubin.data()), static_cast<std::streamsize>(compiled->cubin.size()));
  file.close();
  race_inputs inputs;
  inputs.seed = 1234;
  profile_request request;
  request.run = make_single_kernel_race(*resolved, spec->reference, cubin, resolved->entry, inputs);
  request.metrics = std::move(metrics);
  return request;
}

struct kernel_case {
  std::string label;
  fs::path spec;
  config::tunable_point overrides;
};

std::vector<kernel_case> cases() {
  const fs::path examples = env_path("WARPFORGE_EXAMPLES", WARPFORGE_EXAMPLES_DIR);
  const fs::path fixtures = env_path("WARPFORGE_PROFILE_FIXTURES", WARPFORGE_PROFILE_FIXTURES_DIR);
  return {
    {"transpose_naive", examples / "transpose/problem.toml", {{"USE_SMEM_TILE", 0}}},
    {"transpose_tiled", examples / "transpose/problem.toml", {{"USE_SMEM_TILE", 1}, {"PAD", 1}}},
    {"row_reduction", examples / "row_reduction/problem.toml", {}},
    {"sgemm", examples / "sgemm/problem.toml", {}},
    {"local_memory", fixtures / "local_memory/problem.toml", {}},
    {"divergent", fixtures / "divergent/problem.toml", {}},
  };
}

ncu_options ncu_options_for(const std::string& label) {
  ncu_options options;
  options.ncu = *env().ncu;
  options.runner = test::runner_path();
  options.work_dir = env().dir / ("ncu-" + label);
  return options;
}

std::string shown(const profile_result& r, const std::string& metric) {
  if (auto v = r.values.find(metric); v != r.values.end()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", v->second);
    return text;
  }
  if (auto m = r.missing.find(metric); m != r.missing.end())
    return "- (" + m->second + ")";
  return "-";
}

// The runner under test (test::runner_path()), started.
expected<runner_client, runner_error> start_runner() {
  runner_options options;
  options.executable = test::runner_path();
  return runner_client::start(options);
}

TEST(gpu_profile_metrics, launch_attributes_and_sass_aggregates_match_ncu) {
  REQUIRE_GPU_AND_NCU();
  auto runner = start_runner();
  ASSERT_TRUE(runner) << runner.error().to_string();
  std::vector<std::string> asked = launch_metrics;
  asked.insert(asked.end(), sass_metrics.begin(), sass_metrics.end());
  std::vector<std::string> ncu_asked = asked;
  ncu_asked.insert(ncu_asked.end(), ncu_context.begin(), ncu_context.end());

  std::cout << "| kernel | metric | runner (CUPTI + CUBIN) | ncu |\n| --- | --- | --- | --- |\n";
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.label);
    auto request = problem_request(c.spec, c.overrides, c.label, asked);
    if (request.run.kernels.empty()) {
      ADD_FAILURE() << "no request";
      continue;
    }
    auto ours = runner->profile(request, profile_timeout);
    if (!ours) {
      ADD_FAILURE() << ours.error().to_string();
      continue;
    }
    auto ncu_request = request;
    ncu_request.metrics = ncu_asked;
    auto theirs = profile_with_ncu(ncu_request, ncu_options_for(c.label));
    EXPECT_EQ(ours->status, profile_status::ok) << ours->note;
    EXPECT_EQ(theirs.status, profile_status::ok) << theirs.note;
    for (const auto& metric : ncu_asked)
      std::cout << "| " << c.label << " | " << metric << " | " << shown(*ours, metric) << " | " << shown(theirs, metric)
                << " |\n";
    std::cout << "| " << c.label << " | (runner's note) | " << ours->note << " | |\n";

    for (const auto& metric : launch_metrics) {
      if (!ours->values.count(metric) || !theirs.values.count(metric)) {
        ADD_FAILURE() << metric << ": runner " << shown(*ours, metric) << ", ncu " << shown(theirs, metric);
        continue;
      }
      if (metric == "launch__waves_per_multiprocessor") // ncu reports two decimals
        EXPECT_NEAR(ours->values.at(metric), theirs.values.at(metric), waves_tolerance) << metric;
      else
        EXPECT_EQ(ours->values.at(metric), theirs.values.at(metric)) << metric;
    }
    for (const auto& metric : sass_metrics) {
      const bool ncu_has = theirs.values.count(metric) > 0;
      const bool we_have = ours->values.count(metric) > 0;
      const std::string why = ours->missing.count(metric) ? ours->missing.at(metric) : "";
      if (ncu_has && !we_have && theirs.values.at(metric) == 0.0 && why.starts_with("no value:")) {
        // A ratio over no instruction: ncu prints 0, the runner says there is none (documented).
        continue;
      }
      if (ncu_has && !we_have && why.starts_with("no value: threads of a warp asked for the same bytes")) {
        // A broadcast load: ncu counts unique bytes, which CUPTI cannot (sass_aggregates.hpp).
        std::cout << "| " << c.label << " | " << metric << " | not derivable (broadcast) | " << shown(theirs, metric)
                  << " |\n";
        continue;
      }
      EXPECT_EQ(we_have, ncu_has) << metric << ": runner " << shown(*ours, metric) << ", ncu " << shown(theirs, metric);
      if (!we_have || !ncu_has)
        continue;
      if (metric.ends_with(".sum"))
        EXPECT_EQ(ours->values.at(metric), theirs.values.at(metric)) << metric;
      else
        EXPECT_NEAR(ours->values.at(metric), theirs.values.at(metric), ratio_tolerance_points) << metric;
    }
  }
}

// A campaign's profiles use user replay (actors/gpu_worker.cpp), the L2 evicted by a read sweep
// before every pass: held to ncu's figures. CUPTI's kernel replay is printed beside them: it read
// the divergent fixture's memory throughput 5.4 points above ncu's on 2x H100.
TEST(gpu_profile_metrics, speed_of_light_throughputs_agree_with_ncus_sm_throughput_read_from_parts) {
  REQUIRE_GPU_AND_NCU();
  auto runner = start_runner();
  ASSERT_TRUE(runner) << runner.error().to_string();
  std::cout << "| kernel | metric | runner, user replay (sm from parts) | runner, kernel replay | ncu (kernel replay) |\n"
               "| --- | --- | --- | --- | --- |\n";
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.label);
    auto request = problem_request(c.spec, c.overrides, c.label + "-sol", speed_of_light);
    if (request.run.kernels.empty()) {
      ADD_FAILURE() << "no request";
      continue;
    }
    request.replay = profile_replay::user; // as a campaign's profiles
    auto ours = runner->profile(request, profile_timeout);
    auto kernel_request = request;
    kernel_request.replay = profile_replay::kernel;
    auto kernel = runner->profile(kernel_request, profile_timeout); // printed only
    if (!ours) {
      ADD_FAILURE() << ours.error().to_string();
      continue;
    }
    const auto kernel_shown = [&](const std::string& metric) {
      return kernel ? shown(*kernel, metric) : "no profile: " + kernel.error().to_string();
    };
    auto theirs = profile_with_ncu(kernel_request, ncu_options_for(c.label + "-sol"));
    EXPECT_EQ(ours->status, profile_status::ok) << ours->note;
    EXPECT_EQ(theirs.status, profile_status::ok) << theirs.note;
    if (ours->note.starts_with("chip GH100")) { // where the parts were chosen (throughput_parts.hpp)
      EXPECT_NE(ours->note.find("sm__throughput read as the busiest of"), std::string::npos) << ours->note;
    }
    for (const auto& metric : speed_of_light) {
      std::cout << "| " << c.label << " | " << metric << " | " << shown(*ours, metric) << " | " << kernel_shown(metric)
                << " | " << shown(theirs, metric) << " |\n";
      if (!ours->values.count(metric) || !theirs.values.count(metric)) {
        ADD_FAILURE() << metric << ": runner " << shown(*ours, metric) << ", ncu " << shown(theirs, metric);
        continue;
      }
      EXPECT_NEAR(ours->values.at(metric), theirs.values.at(metric), speed_of_light_tolerance_points) << metric;
    }
    std::cout << "| " << c.label << " | passes | " << ours->passes << " | " << (kernel ? std::to_string(kernel->passes) : "-")
              << " | " << theirs.passes << " |\n";
  }
}

TEST(gpu_profile_metrics, one_profile_through_the_runner_costs_less_than_through_ncu) {
  REQUIRE_GPU_AND_NCU();
  std::vector<std::string> asked = launch_metrics;
  asked.insert(asked.end(), sass_metrics.begin(), sass_metrics.end());
  asked.push_back("gpu__time_duration.sum");
  asked.push_back("dram__throughput.avg.pct_of_peak_sustained_elapsed");
  auto request = problem_request(cases().front().spec, cases().front().overrides, "timing", asked);
  ASSERT_FALSE(request.run.kernels.empty());
  auto runner = start_runner();
  ASSERT_TRUE(runner) << runner.error().to_string();
  ASSERT_TRUE(runner->profile(request, profile_timeout)); // the runner's one-time set-up, untimed
  const auto t0 = std::chrono::steady_clock::now();
  auto ours = runner->profile(request, profile_timeout);
  const auto t1 = std::chrono::steady_clock::now();
  auto theirs = profile_with_ncu(request, ncu_options_for("timing"));
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_TRUE(ours);
  const double cupti_s = std::chrono::duration<double>(t1 - t0).count();
  const double ncu_s = std::chrono::duration<double>(t2 - t1).count();
  std::cout << "one profile of transpose_naive, " << asked.size() << " metrics: runner (CUPTI) " << cupti_s
            << " s (" << to_string(ours->status) << ", " << ours->values.size() << " values); ncu " << ncu_s << " s ("
            << to_string(theirs.status) << ", " << theirs.values.size() << " values)\n";
  EXPECT_EQ(ours->values.size(), asked.size()) << ours->note;
  EXPECT_LT(cupti_s, ncu_s);
}

} // namespace
