// `warpforge observe` through the built binary, without a GPU: bad input (no program, no `--`,
// a program that does not exist, a kernel that never ran), and the cache (reused while the
// signature holds, observed again when the program changes). The observed program is a STAND-IN
// shell script that writes a launch log to $WARPFORGE_OBSERVE_OUT as the injection library would;
// WARPFORGE_OBSERVE_INJECT names a placeholder file (nothing loads it: the script uses no CUDA).
// With --problem (the fixture problem of problem_configs_test.cpp): where the configs file goes and
// what the terminal says about it, a configs_file that does not exist yet, the JSON's shares and
// weights; and a program whose child process also uses CUDA (a second launch log).

#include "config/problem_spec.hpp"
#include "deploy/observe/observation_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct outcome {
  int exit_code = -1;
  std::string out; // stdout
  std::string err; // stderr
};

std::string slurp(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr std::string_view stand_in_app = R"(#!/bin/sh
# STAND-IN for a CUDA program: writes the launch log the injection library would.
cat > "$WARPFORGE_OBSERVE_OUT" <<'LOG'
{"seq":0,"kernel":"transpose","demangled":"transpose","grid":[256,256,1],"block":[32,8,1],"smem":0,"duration_ns":400000,"device":0,"params":[{"offset":0,"size":4,"hex":"00200000"}]}
{"seq":1,"kernel":"fill","demangled":"fill","grid":[16,1,1],"block":[256,1,1],"smem":0,"duration_ns":3000,"device":0,"params":[]}
{"end":true,"launches":2,"dropped":0,"notes":[]}
LOG
echo "stand-in ran"
)";

// STAND-IN for the program of tests/deploy/observe/fixtures/transpose_problem.toml: transpose(in, out,
// rows, cols) launched at rows = 64, cols = 32 (grid (1,2,1) at the default TILE 32), three times.
constexpr std::string_view stand_in_problem_app = R"(#!/bin/sh
cat > "$WARPFORGE_OBSERVE_OUT" <<'LOG'
{"seq":0,"kernel":"transpose","demangled":"transpose","grid":[1,2,1],"block":[32,8,1],"smem":0,"duration_ns":4000,"device":0,"params":[{"offset":0,"size":8,"hex":"0000a000007f0000"},{"offset":8,"size":8,"hex":"0000b000007f0000"},{"offset":16,"size":4,"hex":"40000000"},{"offset":20,"size":4,"hex":"20000000"}]}
{"seq":1,"kernel":"transpose","demangled":"transpose","grid":[1,2,1],"block":[32,8,1],"smem":0,"duration_ns":4100,"device":0,"params":[{"offset":0,"size":8,"hex":"0000a000007f0000"},{"offset":8,"size":8,"hex":"0000b000007f0000"},{"offset":16,"size":4,"hex":"40000000"},{"offset":20,"size":4,"hex":"20000000"}]}
{"seq":2,"kernel":"transpose","demangled":"transpose","grid":[1,2,1],"block":[32,8,1],"smem":0,"duration_ns":3900,"device":0,"params":[{"offset":0,"size":8,"hex":"0000a000007f0000"},{"offset":8,"size":8,"hex":"0000b000007f0000"},{"offset":16,"size":4,"hex":"40000000"},{"offset":20,"size":4,"hex":"20000000"}]}
{"end":true,"launches":3,"dropped":0,"notes":[]}
LOG
)";

class ObserveCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-observe-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream{dir_ / "placeholder_inject.so"} << "not a library";
    write_app(stand_in_app);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_app(std::string_view text) {
    std::ofstream{dir_ / "app.sh"} << text;
    ::chmod((dir_ / "app.sh").c_str(), 0755);
  }
  outcome run(const std::string& args) {
    const auto out = dir_ / "out.txt", err = dir_ / "err.txt";
    const std::string command = "cd " + dir_.string() + " && WARPFORGE_OBSERVE_INJECT=" +
                                (dir_ / "placeholder_inject.so").string() + " " + WARPFORGE_BIN + " " + args +
                                " >" + out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  // The fixture problem copied into dir_ (its kernel beside it), `first_line` before it.
  void write_problem(const std::string& first_line) {
    const fs::path fixtures = fs::path{WARPFORGE_SOURCE_DIR} / "tests/deploy/observe/fixtures";
    fs::copy_file(fixtures / "transpose_kernel.cu", dir_ / "transpose_kernel.cu", fs::copy_options::overwrite_existing);
    std::ofstream{dir_ / "problem.toml"} << first_line << slurp(fixtures / "transpose_problem.toml");
    write_app(stand_in_problem_app);
  }
  fs::path dir_;
};

TEST_F(ObserveCli, WithoutTheSeparatorOrAProgramItIsAUsageError) {
  auto no_separator = run("observe --kernel transpose ./app.sh");
  EXPECT_EQ(no_separator.exit_code, 2);
  EXPECT_NE(no_separator.err.find("put the program after --"), std::string::npos) << no_separator.err;
  auto nothing = run("observe --kernel transpose --");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("no program"), std::string::npos) << nothing.err;
  auto bad_method = run("observe --method nsys -- ./app.sh");
  EXPECT_EQ(bad_method.exit_code, 2);
}

TEST_F(ObserveCli, AProgramThatDoesNotExistIsBadInputNamingIt) {
  auto missing = run("observe -- ./no_such_app --bench");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("program './no_such_app' not found"), std::string::npos) << missing.err;
  auto not_on_path = run("observe -- warpforge-no-such-program");
  EXPECT_EQ(not_on_path.exit_code, 3);
  EXPECT_NE(not_on_path.err.find("not found on PATH"), std::string::npos) << not_on_path.err;
}

TEST_F(ObserveCli, AKernelThatNeverRanFailsAndListsTheKernelsSeen) {
  auto unknown = run("observe --kernel transpos -- ./app.sh");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no launches of 'transpos' were observed. Kernels seen:"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("fill (1 launches)"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("transpose (1 launches)"), std::string::npos) << unknown.err;
}

TEST_F(ObserveCli, TheObservationIsCachedReusedAndObservedAgainWhenTheProgramChanges) {
  auto first = run("observe --kernel transpose -- ./app.sh --bench");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("256,256,1"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("coverage: 100.0%"), std::string::npos) << first.out;
  EXPECT_TRUE(fs::exists(dir_ / ".warpforge-observe" / "transpose.observed.json"));
  EXPECT_NE(slurp(dir_ / ".warpforge-observe" / "transpose.run" / "program.out").find("stand-in ran"),
            std::string::npos);

  auto again = run("observe --kernel transpose -- ./app.sh --bench");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("reusing"), std::string::npos) << again.err;

  write_app(std::string{stand_in_app} + "# rebuilt\n");
  auto rebuilt = run("observe --kernel transpose -- ./app.sh --bench");
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_NE(rebuilt.err.find("observing again: the signature changed"), std::string::npos) << rebuilt.err;

  auto other_method = run("observe --method ncu --kernel transpose -- ./app.sh --bench"); // no ncu on PATH here
  EXPECT_NE(other_method.err.find("observing again: the cache was observed by cupti, --method ncu"), std::string::npos)
    << other_method.err;

  auto json = run("observe --json --kernel transpose -- ./app.sh --bench");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("{\"observation\":", 0), 0u) << json.out;
}

TEST_F(ObserveCli, AScriptRunByAnInterpreterIsObservedAgainWhenTheScriptChanges) {
  // The program is /bin/sh, the same bytes every time: only the script's content tells them apart.
  auto first = run("observe --kernel transpose -- /bin/sh app.sh");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("256,256,1"), std::string::npos) << first.out;
  auto again = run("observe --kernel transpose -- /bin/sh app.sh");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("reusing"), std::string::npos) << again.err;

  std::string edited{stand_in_app};
  edited.replace(edited.find("[256,256,1]"), 11, "[128,128,1]");
  write_app(edited);
  auto changed = run("observe --kernel transpose -- /bin/sh app.sh");
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_NE(changed.err.find("observing again: the signature changed"), std::string::npos) << changed.err;
  EXPECT_EQ(changed.err.find("reusing"), std::string::npos) << changed.err;
  EXPECT_NE(changed.out.find("128,128,1"), std::string::npos) << "the edited script's launches: " << changed.out;
  EXPECT_EQ(changed.out.find("256,256,1"), std::string::npos) << changed.out;
}

TEST_F(ObserveCli, AnArgumentFileAboveTheHashLimitIsNotedAsKeyedBySizeAndMtime) {
  std::ofstream{dir_ / "big.bin"};
  fs::resize_file(dir_ / "big.bin", warpforge::observe::max_hashed_argument_bytes + 1); // sparse
  auto observed = run("observe --kernel transpose -- /bin/sh app.sh big.bin");
  ASSERT_EQ(observed.exit_code, 0) << observed.err;
  EXPECT_NE(observed.out.find("note: the argument file big.bin (" +
                              std::to_string(warpforge::observe::max_hashed_argument_bytes + 1) + " bytes"),
            std::string::npos)
    << observed.out;
  EXPECT_NE(slurp(dir_ / ".warpforge-observe" / "transpose.observed.json").find("by its size and modification time"),
            std::string::npos)
    << "the note is kept with the observation";
}

TEST_F(ObserveCli, AFailingProgramKeepsWhatWasObservedAndShowsItsOutput) {
  write_app(std::string{stand_in_app} + "echo 'out of memory' >&2\nexit 7\n");
  auto failed = run("observe --kernel transpose -- ./app.sh");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("exit code 7"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("out of memory"), std::string::npos) << failed.err;
  EXPECT_NE(failed.out.find("256,256,1"), std::string::npos) << failed.out;
  EXPECT_TRUE(fs::exists(dir_ / ".warpforge-observe" / "transpose.observed.json"));
}

TEST_F(ObserveCli, AProblemWhoseConfigsFileDoesNotExistYetGetsItWrittenAndThenLoads) {
  write_problem("configs_file = \"sizes.configs.toml\"\n");
  ASSERT_FALSE(fs::exists(dir_ / "sizes.configs.toml"));
  // Before: a campaign cannot load the problem (the configs file is missing) ...
  ASSERT_FALSE(warpforge::config::load_problem(dir_ / "problem.toml"));
  auto observed = run("observe --kernel transpose --problem problem.toml -- ./app.sh");
  ASSERT_EQ(observed.exit_code, 0) << observed.err;
  EXPECT_NE(observed.out.find("configs: sizes.configs.toml (the problem's configs_file)"),
            std::string::npos) << observed.out;
  EXPECT_FALSE(fs::exists(dir_ / "transpose.configs.toml"));
  const auto written = slurp(dir_ / "sizes.configs.toml");
  EXPECT_NE(written.find("name = \"64x32\"\nweight = 3\n"), std::string::npos) << written;
  // ... after: it loads, with the observed configuration.
  auto loaded = warpforge::config::load_problem(dir_ / "problem.toml");
  ASSERT_TRUE(loaded) << warpforge::toml_reader::to_string(loaded.error());
  ASSERT_EQ(loaded->configs.size(), 1u);
  EXPECT_EQ(loaded->configs[0].name, "64x32");
}

TEST_F(ObserveCli, AnNcuCacheIsObservedAgainWhenAProblemNeedsScalarValues) {
  write_problem("");
  ASSERT_EQ(run("observe --kernel transpose -- ./app.sh").exit_code, 0);
  // The same program observed by ncu (no scalars): here, the cache relabelled so.
  const auto cache = dir_ / ".warpforge-observe" / "transpose.observed.json";
  auto text = slurp(cache);
  const auto at = text.find("\"method\":\"cupti\"");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, std::string{"\"method\":\"cupti\""}.size(), "\"method\":\"ncu\"");
  std::ofstream{cache} << text;
  auto observed = run("observe --kernel transpose --problem problem.toml -- ./app.sh");
  ASSERT_EQ(observed.exit_code, 0) << observed.err;
  EXPECT_NE(observed.err.find("observing again: the cache was observed by ncu"), std::string::npos) << observed.err;
  EXPECT_TRUE(fs::exists(dir_ / "transpose.configs.toml"));
}

TEST_F(ObserveCli, AProblemWithoutConfigsFileGetsTheKernelsFileAndIsToldToNameIt) {
  write_problem("");
  auto observed = run("observe --kernel transpose --problem problem.toml -- ./app.sh");
  ASSERT_EQ(observed.exit_code, 0) << observed.err;
  EXPECT_TRUE(fs::exists(dir_ / "transpose.configs.toml"));
  EXPECT_NE(observed.out.find("configs: transpose.configs.toml"
                              " (problem.toml does not name it yet: add configs_file = \"transpose.configs.toml\" to it)"),
            std::string::npos) << observed.out;
  EXPECT_EQ(observed.out.find("the problem's configs_file"), std::string::npos) << observed.out;
}

TEST_F(ObserveCli, JsonGivesEachRepresentativesTimeShareAndTheConfigsLaunchCountWeights) {
  write_problem("configs_file = \"sizes.configs.toml\"\n");
  auto json = run("observe --json --kernel transpose --problem problem.toml -- ./app.sh");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"share\":1"), std::string::npos) << json.out; // one representative: all the time
  EXPECT_EQ(json.out.find("\"weight\":1"), std::string::npos) << json.out; // no time share called weight
  EXPECT_NE(json.out.find("\"problem_reads_configs_file\":true"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"problem_configs\":[{\"name\":\"64x32\",\"weight\":3,"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"dims\":{\"ROWS\":64,\"COLS\":32}"), std::string::npos) << json.out;
}

TEST_F(ObserveCli, ASecondCudaProcessesLaunchesAreObservedToo) {
  write_app(std::string{stand_in_app} + "cat > \"$WARPFORGE_OBSERVE_OUT.77\" <<'LOG'\n"
            R"({"seq":0,"kernel":"transpose","demangled":"transpose","grid":[8,8,1],"block":[32,8,1],"smem":0,"duration_ns":100000,"device":0,"params":[]})"
            "\n{\"end\":true,\"launches\":1,\"dropped\":0,\"notes\":[]}\nLOG\n");
  auto observed = run("observe --kernel transpose -- ./app.sh");
  ASSERT_EQ(observed.exit_code, 0) << observed.err;
  EXPECT_NE(observed.out.find("2 launches"), std::string::npos) << observed.out;
  EXPECT_NE(observed.out.find("8,8,1"), std::string::npos) << observed.out;
  EXPECT_NE(observed.out.find("note: 2 CUDA processes observed: launches.jsonl (2 launches), launches.jsonl.77 (1 launches)"),
            std::string::npos) << observed.out;
}

} // namespace
