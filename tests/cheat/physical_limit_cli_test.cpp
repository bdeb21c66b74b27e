// The physical-limit gate through the real `warpforge` binary on stand-in H100s
// (tests/gpu/fake_runner.cpp, mode campaign_impossible: every kernel but the baseline answers
// 1 us, below the 145 us an 8192 x 8192 f32 transpose needs on an H100 even when warm): each such
// candidate is re-measured fresh and cold, recorded `suspicious` with both numbers, and never
// crowned; the sanitizer option without compute-sanitizer on the host says "not sanitized", and
// `bench --sanitize` with a stand-in compute-sanitizer that reports memcheck errors makes the
// kernel incorrect with the first report.

#include "tests/apps/cli/campaign_fixture.hpp"

#include <gtest/gtest.h>

namespace {

using warpforge::testing::campaign_fixture;

class physical_limit_cli : public campaign_fixture {
protected:
  pid_t start_impossible(std::vector<std::string> args, std::vector<std::string> env = {}) {
    env.insert(env.end(), {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign_impossible",
                           "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()});
    return spawn(WARPFORGE_BIN, std::move(args), std::move(env), "stdout.txt", "stderr.txt");
  }

  std::filesystem::path write_transpose_campaign(const std::string& extra = "") {
    const auto file = dir / "campaign.toml";
    std::ofstream{file} << "name = \"impossible\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "gpus = [0]\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[budget]\niterations = 2\nbranches = 2\npatience = 10\n"
                        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n"
                        << extra;
    return file;
  }
};

TEST_F(physical_limit_cli, a_candidate_faster_than_physics_is_recorded_suspicious_and_never_crowned) {
  const int code = wait_exit(start_impossible({"run", write_transpose_campaign().string()}));
  ASSERT_EQ(code, 0) << stderr_text();
  EXPECT_GT(count("SELECT count(*) FROM branches WHERE outcome = 'suspicious'"), 0) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome = 'suspicious' AND detail NOT LIKE "
                  "'%faster than physics allows: measured 1 us, re-measured fresh and cold 1 us%'"),
            0);
  EXPECT_EQ(count("SELECT count(*) FROM iterations WHERE champion_branch_id IS NOT NULL AND "
                  "champion_branch_id NOT IN (SELECT b.id FROM branches b JOIN iterations i ON b.iteration_id = i.id "
                  "WHERE i.number = 1 AND b.ordinal = 0)"),
            0)
      << "a suspicious kernel was crowned";
  EXPECT_EQ(count("SELECT count(*) FROM measurements m JOIN branches b ON m.branch_id = b.id "
                  "WHERE b.outcome = 'suspicious'"),
            0);
}

TEST_F(physical_limit_cli, the_sanitize_option_without_compute_sanitizer_says_not_sanitized) {
  // PATH without compute-sanitizer and a CUDA home without it either.
  const auto empty_home = dir / "no-cuda";
  std::filesystem::create_directories(empty_home / "bin");
  const int code = wait_exit(start_impossible({"run", write_transpose_campaign("[verify]\nsanitize = true\n").string()},
                                              {"PATH=/usr/bin:/bin", "CUDA_HOME=" + empty_home.string()}));
  ASSERT_EQ(code, 0) << stderr_text();
  // The baseline is the only kernel that passes: it was about to be crowned, unsanitized.
  EXPECT_EQ(count("SELECT count(*) FROM branches b JOIN iterations i ON b.iteration_id = i.id WHERE i.number = 1 "
                  "AND b.ordinal = 0 AND b.detail LIKE '%not sanitized: compute-sanitizer not found%'"),
            1)
      << stderr_text();
}

TEST_F(physical_limit_cli, bench_sanitize_makes_a_kernel_with_a_memcheck_error_incorrect_with_its_first_report) {
  // A stand-in compute-sanitizer: checks it was asked to replay an existing request with the
  // runner, then prints a recorded memcheck report (two out-of-bounds writes) and fails as memcheck does.
  const auto bin = dir / "sanitizer-bin";
  std::filesystem::create_directories(bin);
  const auto tool = bin / "compute-sanitizer";
  std::ofstream{tool} << "#!/bin/sh\n"
                      << "[ \"$1 $2\" = \"--tool memcheck\" ] || exit 3\n"
                      << "[ \"$8\" = \"--execute\" ] && [ -f \"$9\" ] || exit 4\n"
                      << "cat '" WARPFORGE_SOURCE_DIR "/tests/gpu/fixtures/memcheck_invalid_write.txt'\n"
                      << "exit 86\n";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  const auto pid = spawn(WARPFORGE_BIN,
                         {"bench", WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml", "--gpus", "0", "--run-root",
                          (dir / "runs").string(), "--sanitize", "--quiet"},
                         {"PATH=" + bin.string() + ":/usr/bin:/bin", "WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH,
                          "WARPFORGE_FAKE_RUNNER_MODE=campaign", "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                         "stdout.txt", "stderr.txt");
  const auto code = wait_exit_within(pid, std::chrono::seconds{120});
  ASSERT_TRUE(code.has_value()) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome = 'incorrect' AND detail LIKE "
                  "'%compute-sanitizer memcheck found 2 errors: Invalid __global__ write of size 4 bytes%'"),
            1)
      << stderr_text() << text_of("stdout.txt");
  EXPECT_EQ(count("SELECT count(*) FROM measurements"), 0) << "a kernel memcheck refused was measured";
}

} // namespace
