#include "calibrate/engine/calibration_run.hpp"

#include "calibrate/engine/measure.hpp"
#include "calibrate/engine/report_files.hpp"
#include "calibrate/engine/run_files.hpp"
#include "calibrate/notes.hpp"
#include "fake_steps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <unistd.h>

namespace warpforge::calibrate {
namespace {

namespace fs = std::filesystem;
using testing::behaviour;
using testing::fake_steps;
using testing::test_parameter;

// What the observer heard, in order ("start a", "end a PASS", "defer c").
class recording_observer : public run_observer {
public:
  void parameter_started(const parameter& what, const gpu_slot&) override { add("start " + what.name); }
  void parameter_finished(const parameter_result& r, const gpu_slot&) override {
    add("end " + r.name + " " + std::string{to_string(r.result)});
    if (stop_after_first_ != nullptr)
      stop_after_first_->store(true); // the first finish asks the run to stop
  }
  void parameter_deferred(const parameter& what, const std::string&) override { add("defer " + what.name); }

  std::vector<std::string> heard() const {
    std::lock_guard lock{mutex_};
    return heard_;
  }
  std::size_t index_of(const std::string& line) const {
    const auto h = heard();
    return static_cast<std::size_t>(std::find(h.begin(), h.end(), line) - h.begin());
  }
  std::atomic<bool>* stop_after_first_ = nullptr;

private:
  void add(std::string line) {
    std::lock_guard lock{mutex_};
    heard_.push_back(std::move(line));
  }
  mutable std::mutex mutex_;
  std::vector<std::string> heard_;
};

// A catalog of five: a <- b <- c, d (fails to compile) <- e, in priority 1.
class calibration_run_test : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-calrun-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    cat_ = catalog::from({test_parameter("a"), test_parameter("b", {"a"}), test_parameter("c", {"b"}),
                          test_parameter("d"), test_parameter("e", {"d"})});
    for (const auto& p : cat_.parameters())
      benches_[p.name] = testing::test_benchmark(p.name);
    options_.run_dir = dir_;
    options_.notes_path = dir_ / "notes.json";
    options_.trials = 5;
  }
  void TearDown() override { fs::remove_all(dir_); }

  benchmark_lookup lookup() {
    return [this](std::string_view name) -> const benchmark* {
      auto found = benches_.find(std::string{name});
      return found == benches_.end() ? nullptr : &found->second;
    };
  }
  run_summary run(bench_steps& steps, std::vector<gpu_slot> gpus, run_observer& observer,
                  const std::atomic<bool>* stop = nullptr) {
    auto summary = run_calibration(cat_, options_, steps, gpus, observer, stop, lookup());
    EXPECT_TRUE(summary) << (summary ? "" : summary.error());
    return summary ? std::move(*summary) : run_summary{};
  }
  static const parameter_result* find(const run_summary& s, const std::string& name) {
    for (const auto& r : s.results)
      if (r.name == name)
        return &r;
    return nullptr;
  }
  static std::vector<gpu_slot> one_gpu() { return {gpu_slot{0, "GPU-0", "NVIDIA H100 80GB HBM3", "sm_90"}}; }

  fs::path dir_;
  catalog cat_;
  std::map<std::string, benchmark> benches_;
  calibration_options options_;
};

TEST_F(calibration_run_test, every_parameter_ends_with_a_status_and_dependents_of_a_failure_are_deferred) {
  fake_steps steps{{{"d", behaviour::compile_error}}};
  recording_observer observer;
  const auto summary = run(steps, one_gpu(), observer);
  ASSERT_EQ(summary.results.size(), 5u);
  EXPECT_EQ(find(summary, "a")->result, status::pass);
  EXPECT_EQ(find(summary, "c")->result, status::pass);
  EXPECT_EQ(find(summary, "d")->result, status::compile_error);
  const auto* e = find(summary, "e");
  EXPECT_EQ(e->result, status::no_data);
  ASSERT_FALSE(e->notes.empty());
  EXPECT_NE(e->notes.front().find("dependency d"), std::string::npos) << e->notes.front();
  EXPECT_EQ(steps.calls("e").builds, 0) << "a deferred parameter is not built";
  ASSERT_EQ(summary.deferred.size(), 1u);
  EXPECT_EQ(summary.passing(), 3u);
  EXPECT_FALSE(summary.interrupted);
  EXPECT_LT(observer.index_of("end a PASS"), observer.index_of("start b"));
  EXPECT_LT(observer.index_of("end b PASS"), observer.index_of("start c"));
  EXPECT_LT(observer.index_of("end d COMPILE_ERROR"), observer.index_of("defer e"));
}

// Seen on the H100: l1_size measured 224 KiB against the published 256 KiB (the combined L1 and
// shared capacity) is a sound measurement that disagrees; the L2 chain after it must still run.
TEST_F(calibration_run_test, a_value_that_disagrees_with_a_publication_does_not_hold_up_its_dependents) {
  auto a = test_parameter("a");
  a.known = {{"sm_90", 8.0, "a publication"}}; // the fake measures 4: 50% off
  cat_ = catalog::from({a, test_parameter("b", {"a"}), test_parameter("c", {"b"})});
  fake_steps steps{{}};
  recording_observer observer;
  const auto summary = run(steps, one_gpu(), observer);
  EXPECT_EQ(find(summary, "a")->result, status::known_value_mismatch);
  EXPECT_EQ(find(summary, "b")->result, status::pass) << "measured, not deferred";
  EXPECT_EQ(find(summary, "c")->result, status::pass);
  EXPECT_TRUE(summary.deferred.empty());
  EXPECT_TRUE(satisfies_dependents(status::known_value_mismatch));
  EXPECT_FALSE(satisfies_dependents(status::high_variance));
  EXPECT_FALSE(satisfies_dependents(status::sass_mismatch));
}

TEST_F(calibration_run_test, the_run_directory_holds_every_report_and_the_archive_of_each_pass) {
  fake_steps steps{{{"d", behaviour::sass_mismatch}, {"b", behaviour::sweep}}};
  recording_observer observer;
  run(steps, one_gpu(), observer);
  for (auto file : {report_file, results_file, measurements_file, accel_sim_file, gpgpu_sim_file})
    EXPECT_TRUE(fs::exists(dir_ / file)) << file;
  EXPECT_TRUE(fs::exists(dir_ / charts_folder / "cv.svg"));
  EXPECT_TRUE(fs::exists(curve_chart_path(dir_, "b"))) << "the swept parameter has its latency chart";
  EXPECT_TRUE(fs::exists(archive_path(dir_, "a")));
  EXPECT_FALSE(fs::exists(archive_path(dir_, "d"))) << "a SASS mismatch is not archived";
  const auto tsv = read_whole_file(dir_ / measurements_file);
  ASSERT_TRUE(tsv);
  EXPECT_NE(tsv->find("SASS_MISMATCH"), std::string::npos);
  auto back = read_results(dir_);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->size(), 5u);
}

TEST_F(calibration_run_test, a_failing_parameter_is_annotated_in_the_notes_kept_across_runs) {
  fake_steps steps{{{"d", behaviour::timeout}}};
  recording_observer observer;
  run(steps, one_gpu(), observer);
  auto book = notes::load(options_.notes_path);
  ASSERT_TRUE(book) << book.error();
  const auto* d = book->find("d");
  ASSERT_NE(d, nullptr);
  ASSERT_FALSE(d->annotations.empty());
  EXPECT_EQ(d->annotations.back().text.rfind("TIMEOUT", 0), 0u) << d->annotations.back().text;
  EXPECT_EQ(book->find("a"), nullptr) << "a pass leaves no note";
}

TEST_F(calibration_run_test, a_resume_measures_only_what_the_interrupted_run_did_not_finish) {
  std::atomic<bool> stop{false};
  fake_steps first{{}};
  recording_observer observer;
  observer.stop_after_first_ = &stop;
  const auto interrupted = run(first, one_gpu(), observer, &stop);
  EXPECT_TRUE(interrupted.interrupted);
  ASSERT_EQ(interrupted.attempted.size(), 1u);
  EXPECT_EQ(interrupted.attempted.front(), "a");

  options_.resume = true;
  fake_steps second{{}};
  recording_observer observer2;
  const auto resumed = run(second, one_gpu(), observer2);
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(second.calls("a").builds, 0) << "a passed in the first run";
  for (auto name : {"b", "c", "d", "e"})
    EXPECT_EQ(second.calls(name).builds, 1) << name;
  EXPECT_EQ(resumed.kept, std::vector<std::string>{"a"});
  EXPECT_EQ(resumed.results.size(), 5u) << "the reports hold the earlier result too";
  EXPECT_EQ(resumed.passing(), 5u);
}

TEST_F(calibration_run_test, a_resume_measures_again_what_was_reset_and_what_had_no_data) {
  fake_steps first{{{"c", behaviour::no_value}}};
  recording_observer observer;
  run(first, one_gpu(), observer);
  options_.resume = true;
  options_.schedule.reset = {"a"};
  fake_steps second{{}};
  run(second, one_gpu(), observer);
  EXPECT_EQ(second.calls("a").builds, 1) << "reset";
  EXPECT_EQ(second.calls("c").builds, 1) << "NO_DATA is not final";
  EXPECT_EQ(second.calls("b").builds, 0);
  EXPECT_EQ(second.calls("d").builds, 0);
}

TEST_F(calibration_run_test, several_gpus_share_the_parameters_each_measured_once_in_dependency_order) {
  fake_steps steps{{}};
  recording_observer observer;
  std::vector<gpu_slot> gpus{{0, "GPU-0", "H100", "sm_90"}, {1, "GPU-1", "H100", "sm_90"}};
  const auto summary = run(steps, gpus, observer);
  for (const auto& p : cat_.parameters()) {
    EXPECT_EQ(steps.calls(p.name).trial_runs, 1) << p.name;
    const int gpu = steps.gpu_of(p.name);
    EXPECT_TRUE(gpu == 0 || gpu == 1) << p.name;
  }
  EXPECT_LT(observer.index_of("end a PASS"), observer.index_of("start b"));
  EXPECT_LT(observer.index_of("end b PASS"), observer.index_of("start c"));
  EXPECT_LT(observer.index_of("end d PASS"), observer.index_of("start e"));
  EXPECT_EQ(summary.passing(), 5u);
}

TEST_F(calibration_run_test, without_a_gpu_every_benchmark_is_built_and_gated_and_none_is_final) {
  fake_steps steps{{}};
  recording_observer observer;
  const auto summary = run(steps, {}, observer);
  for (const auto& r : summary.results) {
    EXPECT_EQ(r.result, status::no_data) << r.name;
    EXPECT_FALSE(is_final(r.result));
    EXPECT_FALSE(r.value) << r.name << ": nothing was measured, so no value (not 0)";
  }
  EXPECT_EQ(steps.calls("c").disassemblies, 1);
  EXPECT_EQ(steps.calls("c").trial_runs, 0);
  EXPECT_EQ(summary.attempted.size(), summary.results.size()) << "each was tried";
  EXPECT_EQ(summary.measured_now(), 0u) << "and none measured: the count says so";
}

TEST_F(calibration_run_test, measured_now_counts_only_the_parameters_given_a_value) {
  fake_steps steps{{{"d", behaviour::compile_error}}};
  recording_observer observer;
  const auto summary = run(steps, one_gpu(), observer);
  std::size_t with_value = 0;
  for (const auto& r : summary.results)
    with_value += r.value.has_value();
  EXPECT_GT(summary.attempted.size(), with_value) << "d did not compile";
  EXPECT_EQ(summary.measured_now(), with_value);
}

TEST_F(calibration_run_test, max_priority_leaves_out_the_lower_priorities) {
  cat_ = catalog::from({test_parameter("a"), test_parameter("z", {}, 4)});
  benches_["z"] = testing::test_benchmark("z");
  options_.schedule.max_priority = 3;
  fake_steps steps{{}};
  recording_observer observer;
  const auto summary = run(steps, one_gpu(), observer);
  EXPECT_EQ(steps.calls("a").builds, 1);
  EXPECT_EQ(steps.calls("z").builds, 0);
  EXPECT_EQ(find(summary, "z"), nullptr);
}

TEST_F(calibration_run_test, an_unreadable_results_file_refuses_the_resume) {
  ASSERT_TRUE(write_file_atomically(dir_ / results_file, "{ not json"));
  options_.resume = true;
  fake_steps steps{{}};
  recording_observer observer;
  auto summary = run_calibration(cat_, options_, steps, one_gpu(), observer, nullptr, lookup());
  ASSERT_FALSE(summary);
  EXPECT_NE(summary.error().find("results.json"), std::string::npos) << summary.error();
}

TEST_F(calibration_run_test, stepped_by_a_driver_it_keeps_two_gpus_busy_and_waits_for_a_dependency) {
  fake_steps steps{{}};
  recording_observer observer;
  auto run = calibration_run::start(cat_, options_, observer, lookup());
  ASSERT_TRUE(run) << run.error();
  const gpu_slot gpu0{0, "GPU-0", "H100", "sm_90"}, gpu1{1, "GPU-1", "H100", "sm_90"};
  auto first = (*run)->next(gpu0);
  auto second = (*run)->next(gpu1);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->what->name, "a");
  EXPECT_EQ(second->what->name, "d") << "b and c wait for a; d is ready";
  EXPECT_EQ(second->gpu.ordinal, 1);
  EXPECT_EQ((*run)->in_flight(), 2u);
  // GPU 0 is free again only when a result comes; until then e (after d) and b (after a) wait.
  (*run)->record(measure_guarded(*second, steps), gpu1);
  auto third = (*run)->next(gpu1);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->what->name, "e");
  EXPECT_FALSE((*run)->next(gpu1)) << "b waits for a, still in flight";
  EXPECT_FALSE((*run)->finished());
  (*run)->record(measure_guarded(*first, steps), gpu0);
  (*run)->record(measure_guarded(*third, steps), gpu1);
  for (auto request = (*run)->next(gpu0); request; request = (*run)->next(gpu0))
    (*run)->record(measure_guarded(*request, steps), gpu0);
  EXPECT_TRUE((*run)->finished());
  const auto summary = (*run)->finish();
  EXPECT_FALSE(summary.interrupted);
  EXPECT_EQ(summary.passing(), 5u);
  EXPECT_EQ(steps.gpu_of("d"), 1);
}

TEST_F(calibration_run_test, a_result_for_a_parameter_not_in_flight_is_ignored) {
  recording_observer observer;
  auto run = calibration_run::start(cat_, options_, observer, lookup());
  ASSERT_TRUE(run) << run.error();
  parameter_result stray;
  stray.name = "a";
  stray.result = status::pass;
  stray.value = 4;
  (*run)->record(stray, one_gpu().front());
  EXPECT_TRUE(observer.heard().empty()) << "nothing was handed out, so nothing is recorded";
  EXPECT_TRUE((*run)->finish().attempted.empty());
}

TEST(is_final, only_no_data_is_measured_again) {
  for (auto s : all_statuses)
    EXPECT_EQ(is_final(s), s != status::no_data) << to_string(s);
}

} // namespace
} // namespace warpforge::calibrate
