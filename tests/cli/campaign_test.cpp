// Optimize campaigns end to end through the real `warpforge` binary: real NVRTC, SQLite, ZeroMQ,
// actors and runner processes, on two stand-in GPUs (tests/gpu/fake_runner.cpp, mode campaign:
// a runner that answers with a time drawn from each CUBIN's bytes). What is tested is the
// campaign logic: every job runs to a stop, a SIGKILL mid-iteration and a Ctrl-C are resumed
// without duplicated or lost rows.

#include "storage/database.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class Campaign : public ::testing::Test {
protected:
  fs::path dir;

  void SetUp() override {
    dir = fs::temp_directory_path() / ("wf-campaign-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "locks");
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path write_campaign(std::uint32_t iterations) {
    const auto file = dir / "campaign.toml";
    std::ofstream out{file};
    out << "name = \"fake-gpus\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/row_reduction/problem.toml\"\n"
        << "[budget]\niterations = " << iterations << "\nbranches = 4\npatience = 10\n"
        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n"
        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  // Starts `warpforge <args...>` on the stand-in GPUs; stdout and stderr go to files in dir.
  pid_t start(std::vector<std::string> args, int delay_ms = 0) {
    std::vector<std::string> env_text{
      "WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
      "WARPFORGE_FAKE_RUNNER_DELAY_MS=" + std::to_string(delay_ms),
      "WARPFORGE_LOCK_DIR=" + (dir / "locks").string(), "HOME=" + dir.string()};
    for (char** e = environ; *e; ++e)
      if (std::string_view{*e}.rfind("WARPFORGE_", 0) != 0 && std::string_view{*e}.rfind("HOME=", 0) != 0)
        env_text.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_text)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    args.insert(args.begin(), WARPFORGE_BIN);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 1, (dir / "stdout.txt").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&files, 2, (dir / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, WARPFORGE_BIN, &files, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&files);
    return pid;
  }

  static int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  std::string stderr_text() {
    std::ifstream in{dir / "stderr.txt"};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path run_dir() {
    for (const auto& entry : fs::directory_iterator{dir / "runs"})
      return entry.path();
    return {};
  }

  std::int64_t count(const std::string& sql) {
    auto db = warpforge::storage::database::open_read_only(run_dir() / "warpforge.db");
    if (!db)
      return -1;
    auto n = db->raw().query_int64(sql);
    return n ? *n : -1;
  }

  // Waits until `sql` counts at least `n` (the campaign is mid-way), at most 60 s.
  bool wait_for(const std::string& sql, std::int64_t n) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (fs::exists(dir / "runs") && !run_dir().empty() && fs::exists(run_dir() / "warpforge.db") &&
          count(sql) >= n)
        return true;
    return false;
  }

  // No row twice, none lost, every branch ended: the invariants a resume must keep.
  void expect_consistent_store() {
    EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome IS NULL"), 0) << "a branch never ended";
    EXPECT_EQ(count("SELECT count(*) FROM (SELECT branch_id FROM measurements GROUP BY branch_id HAVING count(*) > 1)"), 0)
      << "a branch measured twice";
    EXPECT_EQ(count("SELECT count(*) FROM branches b WHERE b.outcome = 'passed' AND NOT EXISTS "
                    "(SELECT 1 FROM measurements m WHERE m.branch_id = b.id)"), 0)
      << "a passed branch without its measurement";
    EXPECT_EQ(count("SELECT count(*) FROM (SELECT iteration_id, ordinal FROM branches GROUP BY iteration_id, "
                    "ordinal HAVING count(*) > 1)"), 0);
    EXPECT_EQ(count("SELECT count(*) FROM jobs WHERE state <> 'finished'"), 0);
    EXPECT_EQ(count("SELECT count(*) FROM campaigns WHERE state = 'finished'"), 1);
  }
};

TEST_F(Campaign, EveryJobRunsToAStopAcrossBothGpusWithChampionsAndAblations) {
  const int code = wait_exit(start({"run", write_campaign(3).string()}, 0));
  ASSERT_EQ(code, 0) << stderr_text();
  expect_consistent_store();
  EXPECT_EQ(count("SELECT count(DISTINCT gpu) FROM measurements"), 2) << "both GPUs were used";
  EXPECT_GE(count("SELECT count(*) FROM branches WHERE kind = 'baseline'"), 2);
  EXPECT_GE(count("SELECT count(*) FROM iterations WHERE champion_branch_id IS NOT NULL"), 1);
  EXPECT_GE(count("SELECT count(*) FROM branches WHERE kind = 'ablation'"), 1)
    << "a champion claiming a method gets its leave-one-out variant";
  EXPECT_TRUE(fs::exists(run_dir() / "summary.md"));
  EXPECT_TRUE(fs::exists(run_dir() / "transpose-speedup.svg"));
  EXPECT_TRUE(fs::exists(run_dir() / "jobs" / "transpose" / "memory.md"));
}

TEST_F(Campaign, PointsThatFailedInAnEarlierRunAreNotProposedAgain) {
  // The faulting-branch fixture: MODE = 3 does not compile. Exhaustive over 2 x 4 points.
  const auto file = dir / "faulting.toml";
  std::ofstream{file} << "name = \"cached\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                      << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/tests/fixtures/faults/campaign/problem.toml\"\n"
                      << "[budget]\niterations = 3\nbranches = 4\npatience = 3\n"
                      << "[proposer]\nkind = \"tune\"\nstrategy = \"exhaustive\"\n"
                      << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
  ASSERT_EQ(wait_exit(start({"run", file.string()})), 0) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome = 'compile_error'"), 2) << "MODE = 3 at both BLOCKs";
  fs::rename(run_dir(), dir / "first-run");

  ASSERT_EQ(wait_exit(start({"run", file.string()})), 0) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE defines_json LIKE '%\"MODE\":3%'"), 0)
    << "the result cache remembered both as invalid";
  EXPECT_NE(stderr_text().find("2 point(s) known invalid from earlier runs"), std::string::npos);
}

TEST_F(Campaign, AResumeAfterSigkillMidIterationFinishesWithNoDuplicatedAndNoLostRows) {
  const pid_t pid = start({"run", write_campaign(4).string()}, 120);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM measurements", 6)) << stderr_text();
  ::kill(pid, SIGKILL);
  EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
  const auto measured_before = count("SELECT count(*) FROM measurements");
  const auto max_id_before = count("SELECT max(id) FROM measurements");
  ASSERT_GE(measured_before, 6);

  const int code = wait_exit(start({"resume", run_dir().string()}, 0));
  ASSERT_EQ(code, 0) << stderr_text();
  expect_consistent_store();
  EXPECT_EQ(count("SELECT count(*) FROM measurements WHERE id <= " + std::to_string(max_id_before)),
            measured_before)
    << "every measurement taken before the kill is still there";
  EXPECT_GT(count("SELECT count(*) FROM measurements"), measured_before) << "the resume went on measuring";
}

TEST_F(Campaign, CtrlCStopsCleanlyAsInterruptedAndResumeFinishes) {
  const pid_t pid = start({"run", write_campaign(4).string()}, 120);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM measurements", 4)) << stderr_text();
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM campaigns WHERE state = 'interrupted'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM jobs WHERE state = 'interrupted'"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome IS NULL"), 0)
    << "work in flight is recorded interrupted";

  const int code = wait_exit(start({"resume", run_dir().string()}, 0));
  ASSERT_EQ(code, 0) << stderr_text();
  expect_consistent_store();
}

} // namespace
