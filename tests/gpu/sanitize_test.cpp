// The champion under compute-sanitizer (gpu/runner/sanitize.hpp): a recorded memcheck report
// (tests/gpu/fixtures/memcheck_invalid_write.txt) read into its first report and error count,
// a clean run, a runner failure without a report, the command line, where the tool is looked
// for, and the whole path with stand-in scripts (this host has no compute-sanitizer).

#include "gpu/runner/sanitize.hpp"

#include "tests/gpu/compile/compile_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace warpforge::gpu;
namespace fs = std::filesystem;

namespace {

const fs::path recorded = fs::path{WARPFORGE_SOURCE_DIR} / "tests/gpu/fixtures/memcheck_invalid_write.txt";

std::string read(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path write_script(const fs::path& dir, const std::string& name, const std::string& body) {
  auto script = dir / name;
  std::ofstream{script} << "#!/bin/sh\n" << body;
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

} // namespace

TEST(sanitize, a_recorded_memcheck_report_makes_errors_with_its_first_report_without_the_backtrace) {
  const auto result = interpret_sanitizer_output(read(recorded), child_exit{sanitize_error_exit_code, std::nullopt});
  EXPECT_EQ(result.status, sanitize_status::errors);
  EXPECT_EQ(result.error_count, 2u);
  EXPECT_EQ(result.first_report, "Invalid __global__ write of size 4 bytes\n"
                                 "at vector_add+0x1d0\n"
                                 "by thread (255,0,0) in block (4096,0,0)\n"
                                 "Address 0x7f3a9c400000 is out of bounds\n"
                                 "and is 1 bytes after the nearest allocation at 0x7f3a98400000 of size 67108864 bytes");
  EXPECT_NE(result.note.find("2 errors"), std::string::npos) << result.note;
  EXPECT_EQ(result.note.find("Host Frame"), std::string::npos) << result.note;
}

TEST(sanitize, a_captured_h100_report_past_the_print_limit_counts_every_error_and_keeps_the_first) {
  // compute-sanitizer 2025.3.1 on an H100 (driver 580): 25 out-of-bounds writes, 16 printed, then
  // a second ERROR SUMMARY line counting the ones not printed.
  const auto result = interpret_sanitizer_output(read(fs::path{WARPFORGE_SOURCE_DIR} /
                                                      "tests/gpu/fixtures/memcheck_h100_captured.txt"),
                                                 child_exit{sanitize_error_exit_code, std::nullopt});
  EXPECT_EQ(result.status, sanitize_status::errors);
  EXPECT_EQ(result.error_count, 25u);
  EXPECT_EQ(result.first_report, "Invalid __global__ write of size 4 bytes\n"
                                 "at vector_add+0x120 in oob.cu:4\n"
                                 "by thread (232,0,0) in block (3,0,0)\n"
                                 "Access to 0x7f7a4a802fa0 is out of bounds\n"
                                 "and is 1 bytes after the nearest allocation at 0x7f7a4a802000 of size 4,000 bytes");
}

TEST(sanitize, no_error_with_exit_zero_is_clean_and_a_runner_failure_is_not_a_pass) {
  const std::string clean = "========= COMPUTE-SANITIZER\nok\n========= ERROR SUMMARY: 0 errors\n";
  EXPECT_EQ(interpret_sanitizer_output(clean, child_exit{0, std::nullopt}).status, sanitize_status::clean);
  const auto failed = interpret_sanitizer_output(clean, child_exit{3, std::nullopt});
  EXPECT_EQ(failed.status, sanitize_status::failed);
  EXPECT_NE(failed.note.find("not sanitized"), std::string::npos) << failed.note;
  EXPECT_EQ(interpret_sanitizer_output("no summary at all\n", child_exit{0, std::nullopt}).status,
            sanitize_status::failed);
  EXPECT_EQ(interpret_sanitizer_output(read(recorded), std::nullopt).status, sanitize_status::failed); // timed out
}

TEST(sanitize, the_command_line_runs_memcheck_around_the_one_shot_runner) {
  sanitize_options options;
  options.runner = "/opt/wf/warpforge-runner";
  EXPECT_EQ(sanitizer_arguments(options, "/run/b/request-sm_90.json"),
            (std::vector<std::string>{"--tool", "memcheck", "--print-limit", std::to_string(sanitize_print_limit),
                                      "--error-exitcode", std::to_string(sanitize_error_exit_code),
                                      "/opt/wf/warpforge-runner", "--execute", "/run/b/request-sm_90.json"}));
}

TEST(sanitize, compute_sanitizer_is_found_on_path_or_in_the_cuda_home_and_absent_is_none) {
  test::scratch_dir dir;
  fs::create_directories(dir.path / "cuda/bin");
  EXPECT_FALSE(find_compute_sanitizer({(dir.path / "cuda").string(), (dir.path / "empty").string()}));
  const auto tool = write_script(dir.path / "cuda/bin", "compute-sanitizer", "exit 0\n");
  EXPECT_EQ(find_compute_sanitizer({(dir.path / "cuda").string(), (dir.path / "empty").string()}), tool);
}

TEST(sanitize, the_whole_path_with_a_stand_in_sanitizer_reports_the_first_error) {
  test::scratch_dir dir;
  const auto runner = write_script(dir.path, "runner", "echo runner ran with \"$@\"\n");
  // Runs the runner (its arguments after the sanitizer's own), then prints the recorded report.
  const auto tool = write_script(dir.path, "compute-sanitizer",
                                 "shift 6\n\"$@\"\ncat '" + recorded.string() + "'\nexit " +
                                     std::to_string(sanitize_error_exit_code) + "\n");
  sanitize_options options;
  options.sanitizer = tool;
  options.runner = runner;
  options.work_dir = dir.path / "work";
  const auto result = sanitize_launch(dir.path / "request.json", options);
  EXPECT_EQ(result.status, sanitize_status::errors) << result.note;
  EXPECT_EQ(result.error_count, 2u);
  const auto output = read(options.work_dir / sanitize_output_file_name);
  EXPECT_NE(output.find("runner ran with --execute " + (dir.path / "request.json").string()), std::string::npos)
      << output;
}

TEST(sanitize, statuses_round_trip_through_their_names) {
  for (auto status : all_sanitize_statuses)
    EXPECT_EQ(sanitize_status_from_string(to_string(status)), status);
  EXPECT_FALSE(sanitize_status_from_string("passed"));
}
