// run_observed's plumbing without a GPU: STAND-IN programs (shell scripts, no CUDA) play the
// observed program — writing a launch log to $WARPFORGE_OBSERVE_OUT as the injection library
// would — and a STAND-IN ncu copies a recorded CSV to its --log-file. What CUDA does with
// CUDA_INJECTION64_PATH is tested on the GPU (deploy/observe/README.md, "On a GPU").

#include "deploy/observe/run_observed.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;

// Two launches of transpose and one of fill, and the end line: a log as the library writes it.
constexpr std::string_view stand_in_log =
  R"({"seq":0,"kernel":"transpose","demangled":"transpose","grid":[256,256,1],"block":[32,8,1],"smem":0,"duration_ns":400000,"device":0,"params":[{"offset":0,"size":4,"hex":"00200000"}]})"
  "\n"
  R"({"seq":1,"kernel":"fill","demangled":"fill","grid":[16,1,1],"block":[256,1,1],"smem":0,"duration_ns":3000,"device":0,"params":[]})"
  "\n"
  R"({"seq":2,"kernel":"transpose","demangled":"transpose","grid":[64,32,1],"block":[32,8,1],"smem":0,"duration_ns":9000,"device":0,"params":[{"offset":0,"size":4,"hex":"00080000"}]})"
  "\n"
  R"({"end":true,"launches":3,"dropped":0,"notes":[]})"
  "\n";

class RunObserved : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-run-observed-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    library_ = dir_ / "libstand_in_inject.so"; // exists; nothing loads it (the program is a script)
    std::ofstream{library_} << "not a library";
    std::ofstream{dir_ / "launches.txt"} << stand_in_log;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path script(const std::string& name, const std::string& body) {
    auto path = dir_ / name;
    std::ofstream{path} << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  observe_request request(const fs::path& program, std::vector<std::string> args = {}) {
    observe_request r;
    r.command = {program.string()};
    r.command.insert(r.command.end(), args.begin(), args.end());
    r.kernel = "transpose";
    r.method = observe_method::cupti;
    r.timeout = std::chrono::seconds{30};
    r.log_dir = dir_ / "log";
    r.inject_library = library_;
    return r;
  }
  fs::path dir_;
  fs::path library_;
};

TEST_F(RunObserved, AStandInProgramsLaunchLogIsReadAndTheEnvironmentPassed) {
  auto program = script("stand_in_app", "echo \"lib=$CUDA_INJECTION64_PATH kernel=$WARPFORGE_OBSERVE_KERNEL\"\n"
                                        "cp " + (dir_ / "launches.txt").string() + " \"$WARPFORGE_OBSERVE_OUT\"\n");
  auto run = run_observed(request(program));
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->method, "cupti");
  EXPECT_EQ(run->exit.exit_code, 0);
  // Every kernel is recorded (no filter for the library), the named one kept, the others counted.
  EXPECT_NE(run->output.find("lib=" + library_.string() + " kernel=\n"), std::string::npos) << run->output;
  ASSERT_EQ(run->launches.size(), 2u); // fill is not the named kernel
  EXPECT_EQ(run->other_kernels, (std::map<std::string, std::size_t>{{"fill", 1}}));
  EXPECT_EQ(run->launches[0].grid[0], 256u);
  EXPECT_EQ(run->launches[1].sequence, 2u);
  EXPECT_DOUBLE_EQ(run->launches[1].duration_s, 9e-6);
  EXPECT_TRUE(fs::exists(dir_ / "log" / launch_log_file_name));
  EXPECT_TRUE(fs::exists(dir_ / "log" / program_output_file_name));
}

TEST_F(RunObserved, EveryCudaProcessesLogIsReadAndStaleOnesRemovedFirst) {
  // A stale log of an earlier run's child: removed before the program starts, or it would be read.
  fs::create_directories(dir_ / "log");
  std::ofstream{dir_ / "log" / "launches.jsonl.99"} << "stale, not JSON\n";
  // The program and a child process (pid 4242) both use CUDA: the second log is <log>.<pid>.
  std::ofstream{dir_ / "child.txt"}
    << R"({"seq":1,"kernel":"transpose","demangled":"transpose","grid":[8,8,1],"block":[32,8,1],"smem":0,"duration_ns":5000,"device":0,"params":[]})"
       "\n"
       R"({"seq":0,"kernel":"transpose","demangled":"transpose","grid":[4,4,1],"block":[32,8,1],"smem":0,"duration_ns":2000,"device":0,"params":[]})"
       "\n";
  auto program = script("stand_in_two_processes", "cp " + (dir_ / "launches.txt").string() + " \"$WARPFORGE_OBSERVE_OUT\"\n"
                                                   "cp " + (dir_ / "child.txt").string() + " \"$WARPFORGE_OBSERVE_OUT.4242\"\n");
  auto run = run_observed(request(program));
  ASSERT_TRUE(run) << run.error();
  ASSERT_EQ(run->launches.size(), 4u); // two of the first process, then the child's by seq
  EXPECT_EQ(run->launches[0].grid[0], 256u);
  EXPECT_EQ(run->launches[1].grid[0], 64u);
  EXPECT_EQ(run->launches[2].grid[0], 4u);
  EXPECT_EQ(run->launches[3].grid[0], 8u);
  std::string notes;
  for (const auto& note : run->notes)
    notes += note + "\n";
  EXPECT_NE(notes.find("2 CUDA processes observed: launches.jsonl (3 launches), launches.jsonl.4242 (2 launches)"),
            std::string::npos) << notes;
  EXPECT_NE(notes.find("launches.jsonl.4242: the launch log has no end line"), std::string::npos) << notes;
  EXPECT_FALSE(fs::exists(dir_ / "log" / "launches.jsonl.99"));
}

TEST_F(RunObserved, AFailingProgramIsAResultWithItsExitOutputAndLaunches) {
  auto program = script("stand_in_failing_app", "cp " + (dir_ / "launches.txt").string() +
                                                  " \"$WARPFORGE_OBSERVE_OUT\"\necho 'it broke' >&2\nexit 3\n");
  auto run = run_observed(request(program));
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->exit.exit_code, 3);
  EXPECT_NE(run->output.find("it broke"), std::string::npos);
  EXPECT_EQ(run->launches.size(), 2u);
}

TEST_F(RunObserved, AProgramPastTheTimeoutIsKilledAndAnError) {
  auto program = script("stand_in_slow_app", "echo started\nsleep 30\n");
  auto r = request(program);
  r.timeout = std::chrono::seconds{1};
  auto run = run_observed(r);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().find("still running after 1 s; killed"), std::string::npos) << run.error();
  EXPECT_NE(run.error().find("started"), std::string::npos) << run.error();
}

TEST_F(RunObserved, ARelativeProgramRunsInItsWorkdir) {
  fs::create_directories(dir_ / "project" / "build");
  script("project/build/stand_in_app", "pwd\n");
  auto r = request("./build/stand_in_app");
  r.workdir = dir_ / "project";
  auto run = run_observed(r);
  ASSERT_TRUE(run) << run.error();
  EXPECT_NE(run->output.find((dir_ / "project").string()), std::string::npos) << run->output;
  ASSERT_FALSE(run->notes.empty()); // it wrote no log
  EXPECT_NE(run->notes[0].find("no launch log was written"), std::string::npos) << run->notes[0];
}

TEST_F(RunObserved, AMissingProgramOrLibraryIsAnErrorSayingWhich) {
  auto missing = run_observed(request(dir_ / "no_such_app"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("no_such_app' not found"), std::string::npos) << missing.error();
  auto on_path = resolve_program("warpforge-no-such-program", "");
  ASSERT_FALSE(on_path);
  EXPECT_NE(on_path.error().find("not found on PATH"), std::string::npos) << on_path.error();
  std::ofstream{dir_ / "plain"} << "x";
  auto not_executable = resolve_program((dir_ / "plain").string(), "");
  ASSERT_FALSE(not_executable);
  EXPECT_NE(not_executable.error().find("not executable"), std::string::npos) << not_executable.error();

  auto r = request(script("stand_in_app", "true\n"));
  r.inject_library = dir_ / "gone.so";
  auto no_library = run_observed(r);
  ASSERT_FALSE(no_library);
  EXPECT_NE(no_library.error().find("gone.so does not exist"), std::string::npos) << no_library.error();
}

TEST_F(RunObserved, TheNcuMethodRunsNcuAroundTheProgramAndReadsItsCsv) {
  const auto csv = fs::path{WARPFORGE_SOURCE_DIR} / "tests/deploy/observe/fixtures/ncu_observe_raw.csv";
  // STAND-IN ncu: copies the recorded CSV to --log-file, then runs the program (its last argument).
  auto ncu = script("stand_in_ncu", "while [ $# -gt 1 ]; do\n"
                                    "  if [ \"$1\" = --log-file ]; then cp " + csv.string() + " \"$2\"; fi\n"
                                    "  shift\ndone\nexec \"$1\"\n");
  auto program = script("stand_in_app", "echo program ran\n");
  auto r = request(program);
  r.method = observe_method::ncu;
  r.ncu = ncu;
  r.kernel = "transpose";
  auto run = run_observed(r);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->method, "ncu");
  EXPECT_NE(run->output.find("program ran"), std::string::npos) << run->output;
  ASSERT_EQ(run->launches.size(), 2u); // the fixture's two transpose launches, not fill
  EXPECT_EQ(run->launches[1].grid[0], 64u);
  ASSERT_FALSE(run->notes.empty());
  EXPECT_EQ(run->notes[0], "ncu: scalar arguments are not available");
}

TEST(ObserveMethod, EveryValueRoundTripsThroughItsName) {
  for (auto method : all_observe_methods)
    EXPECT_EQ(observe_method_from_string(to_string(method)), method);
  EXPECT_FALSE(observe_method_from_string("nsys"));
}

TEST(OutputTail, KeepsTheLastLines) {
  EXPECT_EQ(output_tail("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(output_tail("a\nb\nc", 5), "a\nb\nc");
  EXPECT_EQ(output_tail("", 3), "");
}

} // namespace
} // namespace warpforge::observe
