// The terminal progress of `warpforge run` when its stderr is not a terminal (a log file, CI):
// plain lines for what ends, then a summary; --quiet shows none of it. (The TTY block is tested
// on a pseudo-terminal in tests/feed/progress_display_test.cpp.)

#include "campaign_fixture.hpp"

#include <gmock/gmock.h>

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using warpforge::testing::campaign_fixture;

class Progress : public campaign_fixture {};

TEST_F(Progress, ARunLogsWhatEndsWithTheBestSpeedUpsAndQuietTurnsItOff) {
  ASSERT_EQ(wait_exit(start({"run", write_campaign(2).string()})), 0) << stderr_text();
  const auto logged = stderr_text();
  EXPECT_THAT(logged, HasSubstr("progress: campaign fake-gpus started\n"));
  EXPECT_THAT(logged, HasSubstr("progress: transpose iteration 1: best "));
  EXPECT_THAT(logged, HasSubstr("progress: row_reduction finished ("));
  EXPECT_THAT(logged, HasSubstr("progress: campaign fake-gpus finished after "));
  EXPECT_THAT(logged, HasSubstr("jobs 0 running, 2 finished, 0 failed;"));
  EXPECT_THAT(logged, Not(HasSubstr("\x1b["))) << "not a terminal: no escape sequences";
  // The speed-up the progress printed is the one the store records.
  const auto baseline = count("SELECT CAST(baseline_time_s * 1e9 AS INTEGER) FROM jobs WHERE name = 'transpose'");
  const auto best = count("SELECT CAST(best_time_s * 1e9 AS INTEGER) FROM jobs WHERE name = 'transpose'");
  ASSERT_GT(best, 0);
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "transpose %.2fx", static_cast<double>(baseline) / static_cast<double>(best));
  EXPECT_THAT(logged, HasSubstr(speedup));

  std::filesystem::remove(dir / "stderr.txt");
  std::filesystem::remove_all(dir / "runs");
  ASSERT_EQ(wait_exit(start({"run", "--quiet", write_campaign(2).string()})), 0) << stderr_text();
  EXPECT_THAT(stderr_text(), Not(HasSubstr("progress")));
}

} // namespace
