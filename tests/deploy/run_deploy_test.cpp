// The deploy state machine on a stand-in project (stand_in_project.hpp): every way a deploy ends,
// the bytes of the target file after it, the marker, the journal and the sink's records.

#include "stand_in_project.hpp"

#include <simdjson.h>

#include <algorithm>
#include <vector>

namespace warpforge::deploy {
namespace {

using testing::read_file;
using testing::stand_in_project;

std::vector<std::string> steps_of(const deploy_report& report) {
  std::vector<std::string> out;
  for (const auto& s : report.steps)
    out.push_back(std::string{to_string(s.step)} + ":" + std::string{to_string(s.status)});
  return out;
}

using deploy_test = stand_in_project;

TEST_F(deploy_test, a_faster_champion_is_accepted_and_written_into_its_region_with_its_defines) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("FAST")), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  EXPECT_EQ(kernel_text(), "// the project's kernel header\n// warpforge:begin k\n#ifndef TILE\n#define TILE 32\n"
                           "#endif\n#define SPEED FAST\n// warpforge:end k\n// launch helper below the region\n");
  EXPECT_FALSE(marker_exists());
  ASSERT_TRUE(report.before && report.after);
  EXPECT_DOUBLE_EQ(report.before->median, 2.0);
  EXPECT_DOUBLE_EQ(report.after->median, 1.0);
  EXPECT_EQ(report.before->unit, "kernel_ms");
  EXPECT_EQ(report.before->samples.size(), 3u);
  EXPECT_EQ(steps_of(report),
            (std::vector<std::string>{"gate:passed", "lock:passed", "build_original:passed",
                                      "baseline:passed", "backup:passed", "write:passed", "build:passed",
                                      "verify:passed", "time:passed", "decide:passed", "unlock:passed"}));
  EXPECT_EQ(sink.records, report.steps);
  // the run directory keeps the original, what was written, and every command's log
  EXPECT_EQ(read_file(run_dir / "deploy/transpose/1/backup/src/kernel.cuh"), testing::original_kernel);
  EXPECT_EQ(read_file(report.written), kernel_text());
  EXPECT_NE(read_file(run_dir / "deploy/transpose/1/logs/build-1.log").find("built"), std::string::npos);
  EXPECT_NE(read_file(run_dir / "deploy/transpose/1/logs/time-3.log").find("kernel_ms=1.0"), std::string::npos);
}

TEST_F(deploy_test, a_regressing_champion_is_rolled_back_to_the_byte_identical_original_and_rebuilt) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("SLOW")), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_EQ(report.reason.rfind("regression: kernel_ms 2 -> 3", 0), 0u) << report.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_EQ(read_file(project / "binary.txt"), testing::original_kernel) << "the binary matches the source again";
  EXPECT_FALSE(marker_exists());
  auto steps = steps_of(report);
  EXPECT_EQ(std::vector<std::string>(steps.end() - 5, steps.end()),
            (std::vector<std::string>{"decide:failed", "restore:passed", "rebuild:passed", "reverify:passed",
                                      "unlock:passed"}));
}

TEST_F(deploy_test, a_champion_within_the_noise_is_no_measurable_gain) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("NOISY")), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_EQ(report.reason.rfind("no measurable gain", 0), 0u) << report.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
}

TEST_F(deploy_test, a_champion_failing_the_programs_own_check_is_rolled_back_quoting_its_output) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("FAST WRONG")), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_NE(report.reason.find("verification failed: `sh check.sh` exit code 1"), std::string::npos) << report.reason;
  EXPECT_NE(report.reason.find("check failed: WRONG values at 17"), std::string::npos) << report.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_FALSE(marker_exists());
  EXPECT_FALSE(report.after) << "no timing of a champion that fails its check";
}

TEST_F(deploy_test, a_champion_that_does_not_build_is_rolled_back) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("BROKEN FAST")), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_NE(report.reason.find("the champion does not build"), std::string::npos);
  EXPECT_NE(report.reason.find("error: BROKEN is not a type"), std::string::npos) << report.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_EQ(read_file(project / "binary.txt"), testing::original_kernel);
  EXPECT_FALSE(marker_exists());
}

TEST_F(deploy_test, a_build_failure_goes_to_the_fix_callback_and_its_correction_is_built_and_accepted) {
  collecting_sink sink;
  auto r = request(chosen("BROKEN FAST"));
  std::string seen_log, seen_written;
  r.fix_build = [&](std::string_view log, std::string_view written) -> std::optional<std::string> {
    seen_log = log;
    seen_written = written;
    std::string fixed{written};
    fixed.replace(fixed.find("BROKEN "), 7, "");
    return fixed;
  };
  auto report = run_deploy(r, sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  EXPECT_NE(seen_log.find("error: BROKEN is not a type"), std::string::npos);
  EXPECT_EQ(seen_written, "#ifndef TILE\n#define TILE 32\n#endif\n#define SPEED BROKEN FAST\n");
  EXPECT_NE(kernel_text().find("#define SPEED FAST\n"), std::string::npos);
  auto steps = steps_of(report);
  EXPECT_NE(std::find(steps.begin(), steps.end(), "fix_build:passed"), steps.end());
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "build:failed"), 1);
  EXPECT_EQ(report.steps.at(8).attempt, 2) << "the second build";
}

TEST_F(deploy_test, a_fix_callback_that_never_repairs_stops_after_fix_tries_and_rolls_back) {
  collecting_sink sink;
  auto r = request(chosen("BROKEN"));
  int asked = 0;
  r.fix_tries = 2;
  r.fix_build = [&](std::string_view, std::string_view written) -> std::optional<std::string> {
    ++asked;
    return std::string{written};
  };
  auto report = run_deploy(r, sink);
  EXPECT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(kernel_text(), testing::original_kernel);
}

TEST_F(deploy_test, a_correction_that_repeats_the_region_markers_is_written_as_its_region_only) {
  collecting_sink sink;
  auto r = request(chosen("BROKEN FAST"));
  r.fix_build = [&](std::string_view, std::string_view) -> std::optional<std::string> {
    return "// warpforge:begin k\n#define SPEED FAST\n// warpforge:end k\n";
  };
  auto report = run_deploy(r, sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  const auto text = kernel_text();
  EXPECT_NE(text.find("#define SPEED FAST\n"), std::string::npos) << text;
  // One pair of markers: the target's own.
  EXPECT_EQ(text.find("warpforge:begin k"), text.rfind("warpforge:begin k")) << text;
}

TEST_F(deploy_test, a_gain_below_the_threshold_is_skipped_at_the_gate_before_anything_runs) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("FAST", 0.01)), sink);
  EXPECT_EQ(report.outcome, deploy_outcome::skipped);
  EXPECT_NE(report.reason.find("standalone gain 1.0%"), std::string::npos) << report.reason;
  EXPECT_EQ(steps_of(report), std::vector<std::string>{"gate:skipped"});
  EXPECT_FALSE(std::filesystem::exists(project / "binary.txt")) << "no build ran";
  EXPECT_FALSE(marker_exists());
  EXPECT_EQ(kernel_text(), testing::original_kernel);
}

TEST_F(deploy_test, a_champion_with_its_own_launch_is_refused_at_the_gate_with_the_reason) {
  collecting_sink sink;
  auto c = chosen("FAST");
  c.own_launch = true;
  auto report = run_deploy(request(c), sink);
  EXPECT_EQ(report.outcome, deploy_outcome::refused);
  EXPECT_NE(report.reason.find("its own launch geometry"), std::string::npos) << report.reason;
  EXPECT_EQ(steps_of(report), std::vector<std::string>{"gate:refused"});
  EXPECT_FALSE(std::filesystem::exists(project / "binary.txt"));
}

TEST_F(deploy_test, a_source_a_person_gives_skips_the_gain_gate_and_the_journal_says_so) {
  collecting_sink sink;
  auto c = chosen("FAST", 0.0);
  c.given = true;
  c.label = "mine.cuh";
  auto report = run_deploy(request(c), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  EXPECT_NE(report.steps.front().detail.find("a person chose mine.cuh"), std::string::npos);
  const auto journal = read_file(report.journal);
  EXPECT_NE(journal.find("\"given\":true"), std::string::npos);
  EXPECT_NE(journal.find("a person chose this source"), std::string::npos) << journal;
}

TEST_F(deploy_test, a_second_deploy_over_an_unrecovered_one_is_refused_and_touches_nothing) {
  const auto marker = project / ".warpforge-deploy.json";
  const std::string held = "{\"job\":\"transpose\",\"run_dir\":\"/runs/r0\",\"work_dir\":\"/runs/r0/deploy/t/1\","
                           "\"file\":\"src/kernel.cuh\",\"backup\":\"/runs/r0/deploy/t/1/backup/src/kernel.cuh\"}";
  testing::write_file(marker, held);
  collecting_sink sink;
  auto report = run_deploy(request(chosen("FAST")), sink);
  EXPECT_EQ(report.outcome, deploy_outcome::refused);
  EXPECT_EQ(report.reason, "an unrecovered deploy of transpose from /runs/r0 holds " +
                             std::filesystem::canonical(project).string() +
                             " (it names no process): run warpforge deploy --recover");
  EXPECT_EQ(read_file(marker), held) << "the other deploy's marker stays as it was";
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_FALSE(std::filesystem::exists(project / "binary.txt"));
}

TEST_F(deploy_test, an_original_that_does_not_build_fails_before_anything_is_written) {
  testing::write_file(project / "src/kernel.cuh", std::string{testing::original_kernel} + "// BROKEN\n");
  const auto before = kernel_text();
  collecting_sink sink;
  auto report = run_deploy(request(chosen("FAST")), sink);
  EXPECT_EQ(report.outcome, deploy_outcome::failed);
  EXPECT_EQ(report.reason.rfind("the original does not build", 0), 0u) << report.reason;
  EXPECT_EQ(kernel_text(), before);
  EXPECT_FALSE(marker_exists());
}

TEST_F(deploy_test, the_journal_holds_every_step_with_its_timing_and_the_final_state) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("SLOW")), sink);
  simdjson::dom::parser parser;
  simdjson::dom::object journal;
  ASSERT_EQ(parser.load(report.journal.string()).get(journal), simdjson::SUCCESS);
  std::string_view state, job, champion;
  ASSERT_EQ(journal["state"].get(state), simdjson::SUCCESS);
  EXPECT_EQ(state, "rolled_back");
  ASSERT_EQ(journal["job"].get(job), simdjson::SUCCESS);
  EXPECT_EQ(job, "transpose");
  ASSERT_EQ(journal["champion"].get(champion), simdjson::SUCCESS);
  EXPECT_EQ(champion, "iter-2/branch-1");
  simdjson::dom::array steps;
  ASSERT_EQ(journal["steps"].get(steps), simdjson::SUCCESS);
  EXPECT_EQ(steps.size(), report.steps.size());
  double after_median = 0;
  for (auto step : steps) {
    std::string_view name;
    ASSERT_EQ(step["step"].get(name), simdjson::SUCCESS);
    if (name == "time") {
      ASSERT_EQ(step["timing"]["median"].get(after_median), simdjson::SUCCESS);
    }
  }
  EXPECT_DOUBLE_EQ(after_median, 3.0);
}

TEST_F(deploy_test, a_target_whose_file_links_outside_the_project_is_refused_before_anything_is_written) {
  testing::write_file(dir / "outside.cu", "outside\n");
  std::filesystem::create_symlink("../../outside.cu", project / "src/link.cu");
  auto r = request(chosen("FAST"));
  r.target.file = r.target.project / "src/link.cu";
  r.target.relative_file = "src/link.cu";
  r.target.region.clear();
  collecting_sink sink;
  auto report = run_deploy(r, sink);
  EXPECT_EQ(report.outcome, deploy_outcome::refused);
  EXPECT_NE(report.reason.find("outside the project"), std::string::npos) << report.reason;
  EXPECT_EQ(read_file(dir / "outside.cu"), "outside\n");
  EXPECT_FALSE(marker_exists());
  EXPECT_FALSE(std::filesystem::exists(project / "binary.txt"));
}

} // namespace
} // namespace warpforge::deploy
