#include "calibrate/engine/measure.hpp"

#include "calibrate/engine/run_files.hpp"
#include "fake_steps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unistd.h>

namespace warpforge::calibrate {
namespace {

namespace fs = std::filesystem;
using testing::behaviour;
using testing::fake_steps;

class measure_test : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-measure-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  parameter_result measure(const std::string& name, bench_steps& steps, gpu_slot gpu = h100()) {
    param_ = testing::test_parameter(name);
    bench_ = testing::test_benchmark(name);
    measure_request request;
    request.what = &param_;
    request.bench = &bench_;
    request.gpu = std::move(gpu);
    request.trials = 10;
    request.run_dir = dir_;
    return measure_parameter(request, steps);
  }

  static gpu_slot h100() { return gpu_slot{0, "GPU-test-0", "NVIDIA H100 80GB HBM3", "sm_90"}; }

  fs::path dir_;
  parameter param_;
  benchmark bench_;
};

TEST_F(measure_test, a_steady_benchmark_passes_with_its_median_and_is_archived_with_its_header) {
  fake_steps steps{{}};
  const auto result = measure("lat", steps);
  EXPECT_EQ(result.result, status::pass) << (result.notes.empty() ? "" : result.notes.front());
  EXPECT_EQ(result.stats.n, 10u);
  ASSERT_TRUE(result.value);
  EXPECT_NEAR(*result.value, 4.0045, 1e-9);
  EXPECT_EQ(result.arch, "sm_90");
  EXPECT_EQ(result.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(verdict_passed(result.sass_verdict)) << result.sass_verdict;
  EXPECT_EQ(result.counter_verdict, "not validated: stand-in");
  EXPECT_EQ(steps.calls("lat").counter_checks, 1) << "once, after the trials";
  EXPECT_DOUBLE_EQ(steps.calls("lat").counter_measured, *result.value) << "told the measured value";
  const auto archived = read_whole_file(archive_path(dir_, "lat"));
  ASSERT_TRUE(archived);
  EXPECT_EQ(archived->rfind("// ", 0), 0u) << "the metadata header comes first";
  EXPECT_NE(archived->find("int main() { return 0; }"), std::string::npos) << "then the benchmark's source";
  EXPECT_TRUE(fs::exists(parameter_dir(dir_, "lat") / "sass.txt"));
}

TEST_F(measure_test, a_sass_mismatch_fails_before_any_trial) {
  fake_steps steps{{{"lat", behaviour::sass_mismatch}}};
  const auto result = measure("lat", steps);
  EXPECT_EQ(result.result, status::sass_mismatch);
  EXPECT_EQ(steps.calls("lat").trial_runs, 0);
  EXPECT_FALSE(verdict_passed(result.sass_verdict));
  EXPECT_NE(result.sass_verdict.find("FFMA"), std::string::npos) << result.sass_verdict;
  EXPECT_TRUE(fs::exists(parameter_dir(dir_, "lat") / "sass.txt")) << "the listing is kept to look at";
  EXPECT_FALSE(fs::exists(archive_path(dir_, "lat")));
}

TEST_F(measure_test, a_compile_error_keeps_the_log_and_runs_nothing) {
  fake_steps steps{{{"lat", behaviour::compile_error}}};
  const auto result = measure("lat", steps);
  EXPECT_EQ(result.result, status::compile_error);
  EXPECT_EQ(steps.calls("lat").disassemblies, 0);
  EXPECT_EQ(steps.calls("lat").trial_runs, 0);
  const auto log = read_whole_file(parameter_dir(dir_, "lat") / "compile.log");
  ASSERT_TRUE(log);
  EXPECT_NE(log->find("is undefined"), std::string::npos);
}

TEST_F(measure_test, trials_past_the_watchdog_are_a_timeout) {
  fake_steps steps{{{"lat", behaviour::timeout}}};
  const auto result = measure("lat", steps);
  EXPECT_EQ(result.result, status::timeout);
  EXPECT_EQ(result.notes.size(), 10u) << "one note per failed trial";
}

TEST_F(measure_test, crashing_trials_are_a_runtime_error) {
  fake_steps steps{{{"lat", behaviour::crash}}};
  EXPECT_EQ(measure("lat", steps).result, status::runtime_error);
}

TEST_F(measure_test, trials_that_print_no_value_are_no_data) {
  fake_steps steps{{{"lat", behaviour::no_value}}};
  EXPECT_EQ(measure("lat", steps).result, status::no_data);
}

TEST_F(measure_test, spread_trials_are_high_variance_and_not_archived) {
  fake_steps steps{{{"lat", behaviour::high_variance}}};
  const auto result = measure("lat", steps);
  EXPECT_EQ(result.result, status::high_variance);
  EXPECT_GT(result.stats.cv, 0.05);
  EXPECT_FALSE(fs::exists(archive_path(dir_, "lat")));
}

TEST_F(measure_test, throttled_trials_are_discarded_and_the_rest_still_pass) {
  fake_steps steps{{{"lat", behaviour::throttled}}};
  const auto result = measure("lat", steps);
  EXPECT_EQ(result.stats.discarded, 2u);
  EXPECT_EQ(result.stats.n, 8u);
  ASSERT_TRUE(result.value);
  EXPECT_NEAR(*result.value, 4.0, 1e-9) << "the throttled trials' slower values are left out";
  EXPECT_TRUE(is_passing(result.result)) << to_string(result.result);
}

TEST_F(measure_test, a_sweep_keeps_the_curve_of_the_trial_nearest_the_median) {
  fake_steps steps{{{"lat", behaviour::sweep}}};
  const auto result = measure("lat", steps);
  ASSERT_EQ(result.curve.size(), 4u);
  EXPECT_EQ(result.curve[0].x, 1024);
  // trial i's far points are 200 + i and its value 4 + 0.001 i: the median 4.0045 is nearest
  // trials 4 and 5 (0-based), not the first or the last.
  EXPECT_TRUE(result.curve[3].y == 204 || result.curve[3].y == 205) << result.curve[3].y;
}

TEST_F(measure_test, without_a_gpu_the_benchmark_is_built_and_gated_but_not_run) {
  fake_steps steps{{}};
  const auto result = measure("lat", steps, gpu_slot{});
  EXPECT_EQ(result.result, status::no_data);
  EXPECT_EQ(steps.calls("lat").builds, 1);
  EXPECT_EQ(steps.calls("lat").disassemblies, 1);
  EXPECT_EQ(steps.calls("lat").trial_runs, 0);
  EXPECT_EQ(steps.calls("lat").counter_checks, 0) << "no GPU ran trials: no counters to read";
  EXPECT_TRUE(verdict_passed(result.sass_verdict));
  EXPECT_FALSE(result.value) << "nothing was measured: no value, not 0";
  EXPECT_NE(not_measured_reason(result).find("no GPU"), std::string::npos) << not_measured_reason(result);
}

TEST_F(measure_test, every_way_of_measuring_nothing_leaves_no_value_and_says_why) {
  const std::pair<behaviour, std::string_view> cases[] = {
    {behaviour::sass_mismatch, "SASS gate"}, {behaviour::compile_error, "build for"},
    {behaviour::timeout, "timeout"},         {behaviour::crash, "trial 10"},
    {behaviour::no_value, "no value"},
  };
  for (const auto& [how, reason] : cases) {
    fake_steps steps{{{"lat", how}}};
    const auto result = measure("lat", steps);
    EXPECT_FALSE(result.value) << to_string(result.result) << " has value " << result.value.value_or(-1);
    EXPECT_FALSE(was_measured(result));
    EXPECT_NE(not_measured_reason(result).find(reason), std::string::npos)
      << to_string(result.result) << ": " << not_measured_reason(result);
  }
}

TEST_F(measure_test, without_a_disassembler_the_trials_run_and_the_verdict_says_not_checked) {
  fake_steps steps{{}};
  steps.set_no_disassembler();
  const auto result = measure("lat", steps);
  EXPECT_EQ(steps.calls("lat").trial_runs, 1);
  EXPECT_FALSE(verdict_passed(result.sass_verdict));
  EXPECT_EQ(result.sass_verdict.rfind("not checked", 0), 0u) << result.sass_verdict;
}

TEST_F(measure_test, a_fitted_size_whose_curves_give_no_capacity_is_no_data_and_keeps_a_curve_for_the_chart) {
  fake_steps steps{{{"l1_size", behaviour::sweep}}}; // 1-8 KiB: too short to fit a miss line
  param_ = testing::test_parameter("l1_size");
  param_.unit = "KiB";
  param_.size_from = size_rule::miss_fit;
  bench_ = testing::test_benchmark("l1_size");
  measure_request request;
  request.what = &param_;
  request.bench = &bench_;
  request.gpu = h100();
  request.trials = 10;
  request.run_dir = dir_;
  const auto result = measure_parameter(request, steps);
  EXPECT_EQ(result.result, status::no_data);
  EXPECT_FALSE(result.value) << "never the program's first estimate";
  EXPECT_EQ(result.curve.size(), 4u) << "the curve that says why stays for the chart";
  bool said = false;
  for (const auto& note : result.notes)
    said = said || note.find("10 trial(s) whose curve gives no capacity") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(measure_test, a_parameter_without_a_benchmark_is_no_data_and_says_so) {
  fake_steps steps{{}};
  param_ = testing::test_parameter("lat");
  measure_request request;
  request.what = &param_;
  request.gpu = h100();
  request.run_dir = dir_;
  const auto result = measure_parameter(request, steps);
  EXPECT_EQ(result.result, status::no_data);
  ASSERT_FALSE(result.notes.empty());
  EXPECT_NE(result.notes.front().find("no built-in benchmark"), std::string::npos);
}

TEST(choose_arch, a_wgmma_benchmark_keeps_sm_90a_on_an_sm_90_gpu) {
  const auto bench = testing::test_benchmark("wg", "sm_90a");
  const auto choice = choose_arch(bench, gpu_slot{0, "u", "H100", "sm_90"}, "");
  EXPECT_EQ(choice.arch, "sm_90a");
  EXPECT_TRUE(choice.warning.empty());
}

TEST(choose_arch, a_bare_sm_90_override_of_a_wgmma_benchmark_warns) {
  const auto bench = testing::test_benchmark("wg", "sm_90a");
  const auto choice = choose_arch(bench, gpu_slot{}, "sm_90");
  EXPECT_EQ(choice.arch, "sm_90");
  EXPECT_NE(choice.warning.find("sm_90a"), std::string::npos);
}

TEST(choose_arch, a_portable_benchmark_is_built_for_the_gpu_it_runs_on) {
  const auto bench = testing::test_benchmark("lat", "sm_90");
  EXPECT_EQ(choose_arch(bench, gpu_slot{0, "u", "A100", "sm_80"}, "").arch, "sm_80");
  EXPECT_EQ(choose_arch(bench, gpu_slot{}, "").arch, "sm_90") << "no GPU: the benchmark's own";
}

TEST(base_arch, drops_the_arch_specific_suffix_only) {
  EXPECT_EQ(base_arch("sm_90a"), "sm_90");
  EXPECT_EQ(base_arch("sm_90"), "sm_90");
}

TEST(build_failure_kind, every_value_reads_back_from_its_name) {
  for (auto kind : all_build_failure_kinds)
    EXPECT_EQ(build_failure_kind_from_string(to_string(kind)), kind);
  EXPECT_FALSE(build_failure_kind_from_string("nope"));
}

} // namespace
} // namespace warpforge::calibrate

namespace warpforge::calibrate {
namespace {

// An L1-like sweep: ~33 cycles up to 256 KiB, then ~260.
std::vector<curve_point> l1_curve() {
  std::vector<curve_point> curve;
  for (double kib : {8, 16, 64, 128, 192, 256})
    curve.push_back({kib * 1024, 33});
  for (double kib : {320, 384, 512})
    curve.push_back({kib * 1024, 260});
  return curve;
}

TEST(knee_size, a_cache_size_is_the_knee_of_its_sweep_in_the_parameters_unit) {
  const auto size = knee_size(l1_curve(), "KiB");
  ASSERT_TRUE(size);
  EXPECT_DOUBLE_EQ(*size, 256);
  EXPECT_FALSE(knee_size(l1_curve(), "cycles")) << "only sizes come from a knee";
  EXPECT_FALSE(knee_size({}, "KiB"));
}

TEST(knee_size, of_two_steps_the_first_level_is_the_sweeps_own_cache) {
  // One SM's L2 sweep: near partition (260) -> far partition (330, +27%) -> DRAM (700). The sweep
  // starts in the cache it measures, so its size is where it leaves that first level: 16 MiB.
  std::vector<curve_point> curve;
  for (double mib : {1, 2, 4, 8, 16})
    curve.push_back({mib * 1048576, 260});
  for (double mib : {24, 32, 40, 48})
    curve.push_back({mib * 1048576, 330});
  for (double mib : {64, 96, 128})
    curve.push_back({mib * 1048576, 700});
  const auto size = knee_size(curve, "MiB");
  ASSERT_TRUE(size);
  EXPECT_DOUBLE_EQ(*size, 16);
}

TEST(knee_size, resolves_a_size_between_powers_of_two) {
  // Every SM at once: the L2 level (280) holds to 50 MiB, then climbs gradually toward DRAM.
  std::vector<curve_point> curve;
  for (double mib = 4; mib <= 50; mib += 1)
    curve.push_back({mib * 1048576, 280.0 + static_cast<double>(static_cast<int>(mib) % 3)});
  for (double mib : {51, 52, 54, 58, 64, 80, 96, 128})
    curve.push_back({mib * 1048576, 280 + (mib - 50) * 20});
  const auto size = knee_size(curve, "MiB");
  ASSERT_TRUE(size);
  EXPECT_DOUBLE_EQ(*size, 50);
}

TEST(method_notes, state_the_method_and_the_raw_chase_median_of_a_latency) {
  parameter l1 = testing::test_parameter("l1_hit_latency");
  l1.unit = "cycles";
  l1.method = "one window over 32768 loads";
  trial_harvest harvest;
  harvest.raw_chase_cycles = {41, 43, 42};
  harvest.index_chase_cycles = {39, 39.5};
  const auto notes = method_notes(l1, harvest, {});
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], "method: one window over 32768 loads");
  EXPECT_EQ(notes[1], "raw pointer chase (a clock64 pair around each dependent load, no address arithmetic): "
                      "42 cycles, median of 3 trial(s)");
  EXPECT_EQ(notes[2], "index chase (j = A[j], one clock64 window around the hops, loop and address arithmetic "
                      "included: the figure the published tables compare with): 39.25 cycles, median of 2 trial(s)");
  EXPECT_TRUE(method_notes(testing::test_parameter("x"), trial_harvest{}, {}).empty());
}

TEST(method_notes, set_a_published_figure_beside_the_warpforge_figure_of_the_same_method) {
  parameter l2 = testing::test_parameter("l2_hit_latency");
  l2.unit = "cycles";
  l2.literature = {{"index_chase", "sm_90", "H100 SXM", 291, "j = A[j], 2^25 hops", "a README, row H100"},
                   {"index_chase", "sm_80", "A100 SXM", 210, "j = A[j], 2^25 hops", "a README, row A100"}};
  l2.literature_not_found = "papers unread";
  trial_harvest harvest;
  harvest.index_chase_cycles = {290.8};
  const auto notes = method_notes(l2, harvest, {}, "sm_90a");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1], "published index_chase figure: 291 cycles on H100 SXM (j = A[j], 2^25 hops; a README, "
                      "row H100); warpforge's index_chase 290.8 cycles");
  // Another arch's figures stay out; with none for the arch, the search is reported.
  const auto elsewhere = method_notes(l2, harvest, {}, "sm_75");
  EXPECT_EQ(elsewhere.back(), "published figures: not found (papers unread)");
}

// Every memory latency and cache size of the built-in catalog renders its method and either a
// published figure naming its source or what was searched.
TEST(method_notes, every_memory_latency_and_cache_size_renders_its_method_and_citation) {
  const auto built = catalog::built_in();
  ASSERT_TRUE(built) << built.error();
  int checked = 0;
  for (const auto& p : built->parameters()) {
    const bool latency_or_size = (p.group == category::cache_hierarchy || p.group == category::shared_memory) &&
                                 (p.unit == "cycles" || p.unit == "KiB" || p.unit == "MiB");
    if (!latency_or_size)
      continue;
    ++checked;
    trial_harvest harvest;
    harvest.index_chase_cycles = {1};
    const auto notes = method_notes(p, harvest, {}, "sm_90a");
    ASSERT_FALSE(notes.empty()) << p.name;
    EXPECT_EQ(notes[0], "method: " + p.method) << p.name;
    EXPECT_FALSE(p.method.empty()) << p.name;
    const auto cited = std::find_if(notes.begin(), notes.end(), [](const std::string& note) {
      return note.starts_with("published ") || note.starts_with("published figures: not found (");
    });
    const bool has_known = known_for(p, "sm_90").has_value();
    EXPECT_TRUE(cited != notes.end() || has_known) << p.name << ": no citation and no published value";
    for (const auto& figure : p.literature) {
      if (figure.arch != "sm_90")
        continue;
      const bool rendered = std::any_of(notes.begin(), notes.end(), [&](const std::string& note) {
        return note.find(figure.source) != std::string::npos && note.find(figure.method) != std::string::npos;
      });
      EXPECT_TRUE(rendered) << p.name << ": " << figure.source;
    }
  }
  EXPECT_EQ(checked, 7); // smem, l1 hit, l1 size, l2 hit, l2 size, l2 partition, dram
}

TEST(method_notes, give_a_cache_sizes_knee_position_and_width) {
  parameter l2 = testing::test_parameter("l2_size");
  l2.unit = "MiB";
  std::vector<curve_point> curve;
  for (double mib : {4, 8, 16, 32, 48, 50})
    curve.push_back({mib * 1048576, 280});
  for (double mib : {56, 64, 72})
    curve.push_back({mib * 1048576, mib == 72 ? 600.0 : 400.0});
  const auto notes = method_notes(l2, trial_harvest{}, curve);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "knee at 50 MiB: the last size within 5% of the 280-cycle level; 90% of the way to 600 "
                      "cycles by 72 MiB (22 MiB wide, 44% of the size) (the representative trial's curve)");
}

TEST(apply_size_rule, replaces_each_trials_estimate_by_its_knee_and_notes_trials_without_one) {
  parameter l1 = testing::test_parameter("l1_size");
  l1.unit = "KiB";
  trial_harvest harvest;
  harvest.trials = {{200, 1980}, {210, 1980}};
  harvest.curves = {l1_curve(), {}};
  apply_size_rule(l1, harvest);
  EXPECT_DOUBLE_EQ(harvest.trials[0].value, 256);
  EXPECT_DOUBLE_EQ(harvest.trials[1].value, 210) << "no curve: the program's estimate stays";
  ASSERT_EQ(harvest.notes.size(), 1u);
  EXPECT_NE(harvest.notes.front().find("without a knee"), std::string::npos);
}

TEST(apply_size_rule, a_miss_fit_size_takes_the_fitted_capacity_and_leaves_an_unfitted_trial_without_a_value) {
  parameter l2 = testing::test_parameter("l2_size");
  l2.unit = "MiB";
  l2.size_from = size_rule::miss_fit;
  constexpr double MiB = 1048576;
  // Independent references over a full 50 MiB cache past the knee: 280 + 370 x (1 - 50 / F).
  std::vector<curve_point> fitted;
  for (double mib : {8, 16, 24, 32, 40})
    fitted.push_back({mib * MiB, 280});
  for (double mib : {96, 120, 144, 168, 192})
    fitted.push_back({mib * MiB, 650 - 370 * 50 / mib});
  std::vector<curve_point> flat;
  for (double mib : {8, 16, 32, 64})
    flat.push_back({mib * MiB, 280});
  trial_harvest harvest;
  harvest.trials = {{44, 1980}, {45, 1980}};
  harvest.curves = {fitted, flat};
  apply_size_rule(l2, harvest);
  EXPECT_NEAR(harvest.trials[0].value, 50, 1e-6);
  EXPECT_TRUE(std::isnan(harvest.trials[1].value)) << "not the program's first estimate";
  ASSERT_EQ(harvest.notes.size(), 1u);
  EXPECT_NE(harvest.notes.front().find("1 trial(s) whose curve gives no capacity"), std::string::npos)
      << harvest.notes.front();
  const auto notes = method_notes(l2, trial_harvest{}, fitted);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1].rfind("capacity 50 MiB from the miss line past the knee", 0), 0u) << notes[1];
}

TEST(harvest_trials, keeps_the_values_of_passing_trials_and_notes_each_failed_one) {
  std::vector<trial_output> outputs{
    {gpu::program_outcome::passed, "RESULT: value=5 sm_clock_mhz=1980\n", "", 0.1},
    {gpu::program_outcome::crashed, "", "signal 11", 0.1},
    {gpu::program_outcome::passed, "RESULT: value=6 sm_clock_mhz=1970\n", "", 0.1}};
  const auto harvest = harvest_trials(outputs);
  ASSERT_EQ(harvest.trials.size(), 2u);
  EXPECT_DOUBLE_EQ(harvest.trials[1].value, 6);
  EXPECT_DOUBLE_EQ(harvest.trials[1].sm_clock_mhz, 1970);
  ASSERT_EQ(harvest.notes.size(), 1u);
  EXPECT_NE(harvest.notes.front().find("trial 2: crashed"), std::string::npos) << harvest.notes.front();
  EXPECT_FALSE(harvest.failure);
}

} // namespace
} // namespace warpforge::calibrate
