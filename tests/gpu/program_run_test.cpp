// Program mode against small shell programs that behave well or badly on purpose; the real
// programs are nvcc-built benchmarks, which behave the same way to this code.

#include "gpu/runner/program_run.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace warpforge::gpu {
namespace {

using namespace std::chrono_literals;

TEST(ResultLines, EveryNameValuePairOfEveryResultLineIsReadInOrder) {
  auto values = parse_result_lines("warming up\nRESULT: latency_cycles=32.5 l2.hit=0.98\n"
                                   "noise\r\nRESULT: bandwidth_gbs=3.0127e3\r\n");
  ASSERT_TRUE(values) << values.error().message;
  ASSERT_EQ(values->size(), 3u);
  EXPECT_EQ((*values)[0], (result_value{"latency_cycles", 32.5}));
  EXPECT_EQ((*values)[1], (result_value{"l2.hit", 0.98}));
  EXPECT_EQ((*values)[2], (result_value{"bandwidth_gbs", 3012.7}));
}

TEST(ResultLines, AMalformedResultLineIsAnErrorNamingItsLine) {
  for (auto [text, line] : {std::pair{"ok\nRESULT: x=fast\n", 2u}, std::pair{"RESULT: =3\n", 1u},
                            std::pair{"a\nb\nRESULT:\n", 3u}, std::pair{"RESULT: x=nan\n", 1u}}) {
    auto values = parse_result_lines(text);
    ASSERT_FALSE(values) << text;
    EXPECT_EQ(values.error().line, line) << text;
  }
}

TEST(ProgramOutcome, EveryValueRoundTripsThroughItsName) {
  for (auto o : {program_outcome::passed, program_outcome::failed, program_outcome::crashed,
                 program_outcome::timeout, program_outcome::bad_output})
    EXPECT_EQ(program_outcome_from_string(to_string(o)), o);
  EXPECT_FALSE(program_outcome_from_string("great").has_value());
}

class ProgramRun : public ::testing::Test {
protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path()
                              / ("wf-program-" + std::to_string(::getpid()) + "-"
                                 + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::filesystem::path script(const std::string& body) {
    auto file = dir / "program.sh";
    std::ofstream{file} << "#!/bin/sh\n" << body << "\n";
    ::chmod(file.c_str(), 0755);
    return file;
  }

  program_report run(const std::filesystem::path& program, std::uint32_t trials,
                     std::chrono::milliseconds watchdog = 10s) {
    program_run_options o;
    o.executable = program;
    o.trials = trials;
    o.watchdog = watchdog;
    o.visible_devices = "3";
    o.output_dir = dir / "out";
    auto report = run_program(o);
    EXPECT_TRUE(report) << report.error().detail;
    return report ? *report : program_report{};
  }
};

TEST_F(ProgramRun, TrialsArePinnedAndTheirResultsSummarised) {
  // Each trial reports a different value (the trial log count grows) and the GPU it was given.
  auto report = run(script("n=$(ls \"$(dirname \"$0\")/out\" | wc -l)\n"
                           "echo \"RESULT: time_ms=$n gpu=$CUDA_VISIBLE_DEVICES\""),
                    3);
  ASSERT_EQ(report.trials.size(), 3u);
  EXPECT_EQ(report.passed, 3u);
  ASSERT_TRUE(report.results.count("time_ms"));
  EXPECT_EQ(report.results.at("time_ms").count, 3u);
  EXPECT_DOUBLE_EQ(report.results.at("time_ms").median_s, 2.0);
  EXPECT_DOUBLE_EQ(report.results.at("gpu").min_s, 3.0);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "trial-3.log"));
}

TEST_F(ProgramRun, EachWayOfFailingGetsItsOwnOutcomeAndTheRunGoesOn) {
  auto failed = run(script("echo 'cudaMalloc: out of memory' >&2\nexit 3"), 1);
  EXPECT_EQ(failed.trials.at(0).outcome, program_outcome::failed);
  EXPECT_NE(failed.trials.at(0).detail.find("exit code 3"), std::string::npos);
  EXPECT_NE(failed.trials.at(0).output_tail.find("out of memory"), std::string::npos);

  auto crashed = run(script("kill -SEGV $$"), 1);
  EXPECT_EQ(crashed.trials.at(0).outcome, program_outcome::crashed);

  auto silent = run(script("echo done"), 1);
  EXPECT_EQ(silent.trials.at(0).outcome, program_outcome::bad_output);
  EXPECT_NE(silent.trials.at(0).detail.find("no RESULT"), std::string::npos);

  auto garbled = run(script("echo 'RESULT: x=fast'"), 1);
  EXPECT_EQ(garbled.trials.at(0).outcome, program_outcome::bad_output);
  EXPECT_NE(garbled.trials.at(0).detail.find("line 1"), std::string::npos);

  auto hung = run(script("exec sleep 30"), 2, 200ms);
  ASSERT_EQ(hung.trials.size(), 2u) << "a timed-out trial does not stop the next";
  EXPECT_EQ(hung.trials.at(0).outcome, program_outcome::timeout);
  EXPECT_LT(hung.trials.at(0).wall_s, 5.0);
  EXPECT_EQ(hung.passed, 0u);
}

TEST_F(ProgramRun, AProgramThatCannotStartIsAnError) {
  program_run_options o;
  o.executable = dir / "missing";
  o.output_dir = dir / "out";
  auto report = run_program(o);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().detail.find("missing"), std::string::npos);
}

} // namespace
} // namespace warpforge::gpu
