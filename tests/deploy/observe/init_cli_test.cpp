// `warpforge init` through the built binary, without a GPU. The observed program is a STAND-IN
// shell script that writes the RECORDED launch log of fixtures/init/ (allocations and hashes, as
// the injection library writes them with WARPFORGE_OBSERVE_BUFFERS) to $WARPFORGE_OBSERVE_OUT,
// and records the buffers variable it was given; WARPFORGE_OBSERVE_INJECT names a placeholder
// (nothing loads it). The drafted spec is read back; every refusal names its problem and writes
// nothing.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

const fs::path fixtures = fs::path{WARPFORGE_SOURCE_DIR} / "tests/deploy/observe/fixtures/init";

struct outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

class InitCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-init-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "app");
    std::ofstream{dir_ / "placeholder_inject.so"} << "not a library";
    fs::copy_file(fixtures / "transpose_app.cu", dir_ / "app" / "transpose_app.cu");
    write_app(fixtures / "transpose_launches.jsonl");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The stand-in: writes `log` as its launch log and the buffers variable it saw.
  void write_app(const fs::path& log) {
    std::ofstream{dir_ / "app.sh"} << "#!/bin/sh\n"
                                   << "printf '%s' \"$WARPFORGE_OBSERVE_BUFFERS\" > buffers_env.txt\n"
                                   << "cat '" << log.string() << "' > \"$WARPFORGE_OBSERVE_OUT\"\n";
    ::chmod((dir_ / "app.sh").c_str(), 0755);
  }
  outcome run(const std::string& args, const std::string& env = "") {
    const auto out = dir_ / "out.txt", err = dir_ / "err.txt";
    const std::string command = "cd " + dir_.string() + " && " + env + " WARPFORGE_OBSERVE_INJECT=" +
                                (dir_ / "placeholder_inject.so").string() + " " + WARPFORGE_BIN + " " + args + " >" +
                                out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  fs::path dir_;
};

TEST_F(InitCli, DraftsASpecAndItsKernelFileFromTheObservedRunAndTheRegion) {
  auto drafted = run("init --kernel transposeNaive --source app/transpose_app.cu --out spec/problem.toml "
                     "--build make --verify './transpose_app --check' -- ./app.sh --bench");
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_EQ(slurp(dir_ / "buffers_env.txt"), "transposeNaive") << "the buffers of the named kernel are watched";
  const auto spec = slurp(dir_ / "spec" / "problem.toml");
  EXPECT_TRUE(contains(spec, "entry = \"transposeNaive\"")) << spec;
  EXPECT_TRUE(contains(spec, "role = \"output\"")) << spec;
  EXPECT_TRUE(contains(spec, "project = \"../app\"\nfile = \"transpose_app.cu\"\nregion = \"transposeNaive\"")) << spec;
  EXPECT_TRUE(contains(spec, "/app.sh --bench\"   # the observed command")) << spec; // absolute: runs from the project
  const auto kernel = slurp(dir_ / "spec" / "transposeNaive.kernel.cu");
  EXPECT_TRUE(contains(kernel, "__global__ void transposeNaive(")) << kernel;
  EXPECT_FALSE(contains(kernel, "int main")) << kernel;
  EXPECT_TRUE(contains(drafted.out, "drafted ")) << drafted.out;
  EXPECT_TRUE(contains(drafted.out, "review:")) << drafted.out;

  auto again = run("init --kernel transposeNaive --source app/transpose_app.cu --out spec/problem.toml -- ./app.sh");
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_TRUE(contains(again.err, "problem.toml exists; --force replaces it")) << again.err;
  EXPECT_EQ(slurp(dir_ / "spec" / "problem.toml"), spec) << "left as it was";
  auto forced = run("init --kernel transposeNaive --source app/transpose_app.cu --out spec/problem.toml --force -- ./app.sh");
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
}

TEST_F(InitCli, AKernelThatNeverLaunchedIsRefusedWithTheKernelsSeen) {
  auto refused = run("init --kernel transposeCoalesced --source app/transpose_app.cu -- ./app.sh");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(contains(refused.err, "the kernel 'transposeCoalesced' never launched in the observed run. Kernels seen:"))
    << refused.err;
  EXPECT_TRUE(contains(refused.err, "transposeNaive(float*, float*, int, int) (5 launches)")) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "problem.toml"));
}

TEST_F(InitCli, AKernelOutsideAnyRegionIsRefusedNamingTheLineAndNothingIsWritten) {
  std::string text = slurp(dir_ / "app" / "transpose_app.cu");
  text.erase(text.find("// warpforge:end transposeNaive\n"), std::string_view{"// warpforge:end transposeNaive\n"}.size());
  std::ofstream{dir_ / "app" / "transpose_app.cu"} << text;
  auto refused = run("init --kernel transposeNaive --source app/transpose_app.cu -- ./app.sh");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(contains(refused.err, "transpose_app.cu:7: region 'transposeNaive' has no `// warpforge:end transposeNaive`"))
    << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "problem.toml"));
  EXPECT_FALSE(fs::exists(dir_ / "transposeNaive.kernel.cu"));
}

TEST_F(InitCli, WithoutSourceOrLineInfoToolsItSaysToGiveSource) {
  fs::create_directories(dir_ / "no-cuda");
  auto refused = run("init --kernel transposeNaive -- ./app.sh",
                     "PATH=/usr/bin:/bin CUDA_HOME=" + (dir_ / "no-cuda").string());
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(contains(refused.err, "finding the kernel's source: no cuobjdump on PATH or in $CUDA_HOME/bin")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "--source")) << refused.err;
}

TEST_F(InitCli, BadCommandLinesAreUsageErrors) {
  auto no_kernel = run("init -- ./app.sh");
  EXPECT_EQ(no_kernel.exit_code, 2);
  auto no_separator = run("init --kernel transposeNaive ./app.sh");
  EXPECT_EQ(no_separator.exit_code, 2);
  EXPECT_TRUE(contains(no_separator.err, "put the program after --")) << no_separator.err;
  auto half_deploy = run("init --kernel transposeNaive --build make -- ./app.sh");
  EXPECT_EQ(half_deploy.exit_code, 2);
  EXPECT_TRUE(contains(half_deploy.err, "--build and --verify go together")) << half_deploy.err;
  auto missing = run("init --kernel transposeNaive -- ./no_such_app");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(contains(missing.err, "no_such_app")) << missing.err;
}

} // namespace
