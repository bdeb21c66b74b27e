#pragma once
// A stand-in for a user's project, written into a fresh temp folder: no compiler, no GPU. Its
// "build" concatenates the kernel file into a "binary" (binary.txt); its check fails when the
// binary says WRONG; its benchmark prints `RESULT: kernel_ms=<v>`: 1 for FAST, 3 for SLOW, 2
// otherwise (the original says BASE), and for NOISY 1.9 twice then 1.2 (a median of
// 1.9 in any three runs, within its own noise of the original's 2). A kernel file saying
// BROKEN fails to build; one saying CRASH makes the build kill the deployer (kill -9 $PPID).

#include "deploy/champion.hpp"
#include "config/deploy_target.hpp"
#include "deploy/run_deploy.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace warpforge::deploy::testing {

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream{file, std::ios::binary} << text;
}

inline constexpr std::string_view original_kernel =
  "// the project's kernel header\n"
  "// warpforge:begin k\n"
  "#define SPEED BASE\n"
  "// warpforge:end k\n"
  "// launch helper below the region\n";

class stand_in_project : public ::testing::Test {
protected:
  std::filesystem::path dir;
  std::filesystem::path project;
  std::filesystem::path run_dir;

  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("wf-deploy-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    project = dir / "app";
    run_dir = dir / "run";
    std::filesystem::create_directories(run_dir);
    write_file(project / "src/kernel.cuh", std::string{original_kernel});
    write_file(project / "build.sh",
               "cat src/kernel.cuh > binary.txt\n"
               "if grep -q BROKEN src/kernel.cuh; then echo 'kernel.cuh:3: error: BROKEN is not a type' >&2; exit 1; fi\n"
               "echo built\n");
    write_file(project / "check.sh",
               "if grep -q WRONG binary.txt; then echo 'check failed: WRONG values at 17'; exit 1; fi\n"
               "echo check passed\n");
    write_file(project / "bench.sh",
               "n=$(cat .bench-count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > .bench-count\n"
               "if grep -q FAST binary.txt; then v=1.0\n"
               "elif grep -q SLOW binary.txt; then v=3.0\n"
               "elif grep -q NOISY binary.txt; then if [ $((n % 3)) -eq 0 ]; then v=1.2; else v=1.9; fi\n"
               "else v=2.0; fi\n"
               "echo \"RESULT: kernel_ms=$v\"\n");
  }

  void TearDown() override { std::filesystem::remove_all(dir); }

  deploy_target target() const {
    deploy_target t;
    t.project = std::filesystem::canonical(project);
    t.file = t.project / "src/kernel.cuh";
    t.relative_file = "src/kernel.cuh";
    t.region = "k";
    t.build = "if grep -q CRASH src/kernel.cuh; then kill -9 $PPID; exit 1; fi; sh build.sh";
    t.verify = "sh check.sh";
    t.time = "sh bench.sh";
    t.result_key = "kernel_ms";
    t.repeats = 3;
    t.build_timeout = std::chrono::seconds{30};
    t.run_timeout = std::chrono::seconds{30};
    return t;
  }

  // A champion whose region says `speed` (FAST, SLOW, BROKEN FAST, ...), one tunable.
  static champion chosen(const std::string& speed, double gain = 0.5) {
    champion c;
    c.source = "// the tuned kernel\n// warpforge:begin k\n#define SPEED " + speed + "\n// warpforge:end k\n";
    c.defines = {{"TILE", 32}};
    c.standalone_gain = gain;
    c.label = "iter-2/branch-1";
    return c;
  }

  deploy_request request(champion c, const std::string& work = "deploy/transpose/1") const {
    deploy_request r;
    r.target = target();
    r.chosen = std::move(c);
    r.job = "transpose";
    r.run_dir = run_dir;
    r.work_dir = run_dir / work;
    return r;
  }

  std::string kernel_text() const { return read_file(project / "src/kernel.cuh"); }
  bool marker_exists() const { return std::filesystem::exists(project / ".warpforge-deploy.json"); }
};

} // namespace warpforge::deploy::testing
