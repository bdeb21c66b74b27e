// examples/deploy/app builds as a user builds it: CMake configure + build, out of source, for
// sm_90 (no GPU needed to compile), with the toolkit's nvcc. Labelled nvcc: about 20 s.
#include "gpu/runner/child_process.hpp"
#include "gpu/toolchain.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpforge;

namespace {

const std::filesystem::path app_dir =
    std::filesystem::path(WARPFORGE_SOURCE_DIR) / "examples" / "deploy" / "app";

// A fresh folder under the temp dir, removed with everything in it.
struct scratch_dir {
  std::filesystem::path path = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "wf-example-app-XXXXXX").string();
    return std::filesystem::path(::mkdtemp(pattern.data()));
  }();
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs cmake with `arguments`, its output appended to `log`; "" when it exited 0, else why not.
std::string run_cmake(const std::vector<std::string>& arguments, const std::filesystem::path& log) {
  gpu::spawn_options options;
  options.executable = WARPFORGE_CMAKE_COMMAND;
  options.arguments = arguments;
  options.output_file = log;
  auto child = gpu::child_process::spawn(options);
  if (!child)
    return child.error().detail;
  const auto exit = child->wait_for_exit(std::chrono::minutes(4));
  if (!exit)
    return "cmake still running after 4 minutes (killed)";
  if (exit->exit_code != 0)
    return "cmake " + exit->to_string() + ":\n" + read_text(log);
  return {};
}

} // namespace

TEST(deploy_example_app, configures_and_builds_with_cmake_for_sm_90) {
  const auto toolchain = gpu::probe_toolchain();
  const auto& nvcc = toolchain.find(gpu::cuda_tool::nvcc).path;
  if (!nvcc)
    GTEST_SKIP() << "no nvcc on this host";
  scratch_dir build;
  const auto log = build.path / "cmake.log";
  // The generator warpforge itself is built with (it is known to be installed).
  ASSERT_EQ(run_cmake({"-S", app_dir.string(), "-B", (build.path / "build").string(),
                       "-G", WARPFORGE_CMAKE_GENERATOR,
                       "-DCMAKE_MAKE_PROGRAM=" WARPFORGE_CMAKE_MAKE_PROGRAM,
                       "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CUDA_ARCHITECTURES=90",
                       "-DCMAKE_CUDA_COMPILER=" + nvcc->string()},
                      log),
            "");
  ASSERT_EQ(run_cmake({"--build", (build.path / "build").string(), "-j2"}, log), "");
  const auto binary = build.path / "build" / "transpose_app";
  EXPECT_TRUE(std::filesystem::is_regular_file(binary)) << read_text(log);
  EXPECT_EQ(::access(binary.c_str(), X_OK), 0);
  EXPECT_FALSE(std::filesystem::exists(app_dir / "CMakeCache.txt")) << "the build wrote into the source";
}
