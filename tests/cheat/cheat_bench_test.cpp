// Needs a GPU (labels gpu, cheat): `warpforge bench` on each problem with every kernel of
// tests/cheat/cheats.tsv for it as a --candidate, in one run, through the whole pipeline
// (compile, the PTX/SASS checks, the race, the physical-limit gate): each must get the outcome the
// manifest gives for bench. A kind whose check is not in place yet fails here, by design.
// `--sanitize` for the out-of-bounds writer is its own case. Skips without a usable GPU.
#include "tests/cheat/cheat_manifest.hpp"

#include <gtest/gtest.h>

#include <simdjson.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

using namespace warpforge;
namespace fs = std::filesystem;
using vocabulary::branch_outcome;
using warpforge::cheat::cheat_entry;

namespace {

constexpr int exit_no_gpu = 5; // apps/warpforge/cli/exit_codes.hpp exit_code::no_gpu: no usable GPU here

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text)
    out += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
  return out + "'";
}

struct bench_run {
  int exit_code = -1;
  std::string json; // the --json object (stdout)
};

// `warpforge bench <problem> --json --candidate ...` with its stderr in `log`.
bench_run bench(const std::string& problem, const std::vector<cheat_entry>& candidates,
                const std::vector<std::string>& extra, const fs::path& dir) {
  std::string command = shell_quote(WARPFORGE_BIN) + " bench " +
                        shell_quote((cheat::source_root() / "examples" / problem / "problem.toml").string()) +
                        " --json --run-root " + shell_quote((dir / "runs").string());
  for (const auto& e : candidates)
    command += " --candidate " + shell_quote(e.file.string());
  for (const auto& x : extra)
    command += " " + x;
  command += " 2>" + shell_quote((dir / (problem + ".log")).string());
  bench_run run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return run;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.json.append(buffer, got);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

struct row {
  std::string outcome;
  std::string detail;
};

// kernel label (the candidate's file name; "baseline") -> its row, for GPU 0.
std::map<std::string, row> rows_of(const std::string& json) {
  std::map<std::string, row> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS)
    return out;
  simdjson::dom::array kernels;
  if (doc["kernels"].get(kernels) != simdjson::SUCCESS)
    return out;
  for (auto k : kernels) {
    std::string_view label, outcome, detail;
    if (k["kernel"].get(label) || k["outcome"].get(outcome) || k["detail"].get(detail))
      continue;
    out[std::string{label}] = {std::string{outcome}, std::string{detail}};
  }
  return out;
}

class cheat_bench : public ::testing::Test {
protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("warpforge-cheat-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }

  // Whether `warpforge doctor --require-gpu` finds a usable GPU here.
  bool gpu_here() {
    const std::string command = shell_quote(WARPFORGE_BIN) + " doctor --require-gpu --run-root " +
                                shell_quote((dir / "runs").string()) + " >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    return !(WIFEXITED(status) && WEXITSTATUS(status) == exit_no_gpu);
  }

  void bench_the_cheats(const std::string& problem, bool sanitized) {
    if (!gpu_here())
      GTEST_SKIP() << "no usable GPU here (warpforge doctor --require-gpu)";
    std::vector<cheat_entry> candidates;
    for (const auto& e : cheat::cheats_for(problem))
      if ((e.kind == "writes_outside_buffers") == sanitized && e.kind != "honest")
        candidates.push_back(e);
    ASSERT_FALSE(candidates.empty());
    auto run = bench(problem, candidates, sanitized ? std::vector<std::string>{"--sanitize"} : std::vector<std::string>{},
                     dir);
    if (run.exit_code == exit_no_gpu || run.json.find("\"no_gpu\"") != std::string::npos)
      GTEST_SKIP() << "no usable GPU here (warpforge bench, exit code " << run.exit_code << ")";
    std::cout << run.json << "\n";
    const auto rows = rows_of(run.json);
    ASSERT_FALSE(rows.empty()) << "no --json rows; exit code " << run.exit_code << ", see " << (dir / (problem + ".log"));
    ASSERT_TRUE(rows.contains("baseline"));
    EXPECT_EQ(rows.at("baseline").outcome, "passed") << "the honest kernel is measured beside the cheats: "
                                                     << rows.at("baseline").detail;
    for (const auto& e : candidates) {
      ASSERT_TRUE(rows.contains(e.name())) << e.name() << " has no row";
      const auto& r = rows.at(e.name());
      bool expected = false;
      std::string wanted;
      for (auto outcome : e.bench) {
        expected = expected || r.outcome == to_string(outcome);
        wanted += std::string{wanted.empty() ? "" : " or "} + std::string{to_string(outcome)};
      }
      EXPECT_TRUE(expected) << e.kind << " (" << e.name() << "): got " << r.outcome << ", want " << wanted
                            << " (caught by " << e.caught << "): " << r.detail;
      if (!e.reason.empty() && expected)
        EXPECT_NE(r.detail.find(e.reason), std::string::npos) << e.kind << ": " << r.detail;
    }
  }
};

} // namespace

TEST_F(cheat_bench, every_transpose_cheat_gets_its_outcome_in_one_bench_run) {
  bench_the_cheats("transpose", false);
}

TEST_F(cheat_bench, every_vector_add_cheat_gets_its_outcome_in_one_bench_run) {
  bench_the_cheats("vector_add", false);
}

TEST_F(cheat_bench, the_out_of_bounds_writer_is_caught_under_sanitize) {
  bench_the_cheats("vector_add", true);
}
