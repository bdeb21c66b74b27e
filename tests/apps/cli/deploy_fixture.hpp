#pragma once
// A finished tune campaign whose problem deploys into a stand-in project, for `warpforge deploy`
// end to end (deploy_command_test.cpp): the real binary, real NVRTC, SQLite and actors, two
// stand-in GPUs (tests/gpu/fake_runner.cpp, mode campaign) and a project with no compiler:
//
//   <dir>/problem.toml        vector_add; kernel.source = app/kernel.cu; [deploy] into app/
//   <dir>/app/kernel.cu       the kernel between `// warpforge:begin add` and `// warpforge:end add`
//                             (the campaign tunes this very file, so the champion carries the
//                             markers), `#ifndef BLOCK / #define BLOCK 256` inside the region
//   build   `sh build.sh`: copies kernel.cu to build/binary.txt; a kernel.cu saying CRASH makes
//           the build command kill -9 its parent, the deployer (only when that is warpforge)
//   verify  `sh check.sh`: fails when the binary says BROKEN
//   time    `sh bench.sh`: RESULT: kernel_ms=3 when the binary says SLOW, 1 when it holds two
//           `#define BLOCK` lines (the champion's guarded define above the original's), else 2
//
// Every answer of the project depends only on the text built: deterministic, whichever point
// the tuner crowned. The fake runner's time of a kernel is drawn from its CUBIN's bytes, and NVRTC
// writes the compiler's working folder into them (line info): warpforge runs in a fixed folder,
// so the draws (and that some point beats the baseline among six) are the same on every run.

#include "campaign_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace warpforge::testing {

inline constexpr std::string_view stand_in_kernel =
  "// The stand-in project's kernel: c = a + b.\n"
  "// warpforge:begin add\n"
  "#ifndef BLOCK\n"
  "#define BLOCK 256\n"
  "#endif\n"
  "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
  "  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);\n"
  "  if (i < n)\n"
  "    c[i] = a[i] + b[i];\n"
  "}\n"
  "// warpforge:end add\n"
  "// the host code below the region launches it\n";

// The [deploy] table; `build` kills the deployer (its shell's $PPID) when the kernel says CRASH.
inline constexpr std::string_view deploy_table =
  "[deploy]\n"
  "project = \"app\"\n"
  "file = \"kernel.cu\"\n"
  "region = \"add\"\n"
  "build = '''if grep -q CRASH kernel.cu && [ \"$(cat /proc/$PPID/comm)\" = warpforge ]; then "
  "kill -9 $PPID; exit 1; fi; sh build.sh'''\n"
  "verify = \"sh check.sh\"\n"
  "time = \"sh bench.sh\"\n"
  "result_key = \"kernel_ms\"\n"
  "repeats = 3\n"
  "gain_threshold = 0.0\n"; // the fake runner's times are made up: the gate must not decide

inline constexpr std::string_view vector_add_problem =
  "name = \"vector_add\"\n"
  "[kernel]\nsource = \"app/kernel.cu\"\nentry = \"vector_add\"\n"
  "[dims]\nN = 1048576\n"
  "[[tunables]]\nname = \"BLOCK\"\nvalues = [32, 64, 128, 256, 512, 1024]\ndefault = 256\n"
  "[[args]]\nname = \"a\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"input\"\n"
  "[[args]]\nname = \"b\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"input\"\n"
  "[[args]]\nname = \"c\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"output\"\n"
  "[[args]]\nname = \"n\"\ndtype = \"i32\"\nvalue = \"N\"\n"
  "[launch]\ngrid = [\"ceil_div(N, BLOCK)\", 1, 1]\nblock = [\"BLOCK\", 1, 1]\n"
  "[reference]\nkind = \"self\"\n";

struct command_result {
  int code = -1;
  std::string out;
  std::string err;
};

class deploy_fixture : public campaign_fixture {
protected:
  std::filesystem::path project;

  void SetUp() override {
    campaign_fixture::SetUp();
    // The children inherit it: see the note at the top on CUBIN bytes.
    working_folder_ = std::filesystem::current_path();
    std::filesystem::current_path(std::filesystem::temp_directory_path());
    project = dir / "app";
    write(project / "kernel.cu", std::string{stand_in_kernel});
    write(project / "build.sh", "mkdir -p build && cat kernel.cu > build/binary.txt && echo built\n");
    write(project / "check.sh",
          "if grep -q BROKEN build/binary.txt; then echo 'check failed: BROKEN'; exit 1; fi\n"
          "echo check passed\n");
    write(project / "bench.sh",
          "if grep -q SLOW build/binary.txt; then v=3.0\n"
          "elif [ \"$(grep -c '^#define BLOCK' build/binary.txt)\" -ge 2 ]; then v=1.0\n"
          "else v=2.0; fi\n"
          "echo \"RESULT: kernel_ms=$v\"\n");
    write(dir / "problem.toml", std::string{vector_add_problem} + std::string{deploy_table});
  }

  void TearDown() override {
    std::filesystem::current_path(working_folder_);
    campaign_fixture::TearDown();
  }

  static void write(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream{file, std::ios::binary} << text;
  }

  static std::string read(const std::filesystem::path& file) {
    std::ifstream in{file, std::ios::binary};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string kernel_text() const { return read(project / "kernel.cu"); }
  bool marker_exists() const { return std::filesystem::exists(project / ".warpforge-deploy.json"); }

  // A kernel file a person chose (--source): the region says `word` (SLOW, CRASH, ...).
  std::filesystem::path source_saying(const std::string& word) {
    const auto file = dir / (word + ".cu");
    write(file, "// warpforge:begin add\n// " + word + "\n#define BLOCK 256\n// warpforge:end add\n");
    return file;
  }

  std::filesystem::path write_deploy_campaign(bool at_end) {
    const auto file = dir / "campaign.toml";
    std::ofstream out{file};
    out << "name = \"deploy-stand-in\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
        << "[[jobs]]\nproblem = \"" << (dir / "problem.toml").string() << "\"\n"
        << "[budget]\niterations = 2\nbranches = 3\npatience = 10\n"
        << "[proposer]\nkind = \"tune\"\nstrategy = \"exhaustive\"\n"
        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    if (at_end)
      out << "[deploy]\nat_end = true\n";
    return file;
  }

  // `warpforge <args...>` on the stand-in GPUs to its end (at most 120 s), its output apart.
  command_result warpforge(std::vector<std::string> args) {
    const auto n = std::to_string(++commands_);
    const pid_t pid = spawn(WARPFORGE_BIN, std::move(args),
                            {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                             "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                            "out-" + n + ".txt", "err-" + n + ".txt");
    command_result result;
    result.code = wait_exit_within(pid, std::chrono::seconds{120}).value_or(-1);
    result.out = text_of("out-" + n + ".txt");
    result.err = text_of("err-" + n + ".txt");
    return result;
  }

  // The campaign run to its end; its run directory (empty, and the test failed, when it did not).
  std::filesystem::path finished_run() {
    auto run = warpforge({"run", write_deploy_campaign(false).string()});
    EXPECT_EQ(run.code, 0) << run.err;
    return run_dir();
  }

  std::string text_query(const std::string& sql) {
    auto db = storage::database::open_read_only(run_dir() / "warpforge.db");
    if (!db)
      return "(no database)";
    auto text = db->raw().query_text(sql);
    return text ? *text : "(no row)";
  }

  // The steps of the deployment `id`, in seq order, as "step:status".
  std::vector<std::string> steps_of(std::int64_t id) {
    std::vector<std::string> steps;
    auto db = storage::database::open_read_only(run_dir() / "warpforge.db");
    if (!db)
      return steps;
    auto rows = db->load_deploy_steps(id);
    if (rows)
      for (const auto& row : *rows)
        steps.push_back(row.step + ":" + row.status);
    return steps;
  }

private:
  std::filesystem::path working_folder_;
  int commands_ = 0;
};

} // namespace warpforge::testing
