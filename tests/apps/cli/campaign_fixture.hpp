#pragma once
// Campaigns through the real `warpforge` binary on two stand-in GPUs (tests/gpu/fake_runner.cpp,
// mode campaign: a runner that answers with a time drawn from each CUBIN's bytes), and the
// programs that watch them (the Python monitor, a headless browser): real NVRTC, SQLite, ZeroMQ,
// actors and runner processes. Shared by campaign_test, monitor_test and dashboard_test.

#include "storage/database.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace warpforge::testing {

class campaign_fixture : public ::testing::Test {
protected:
  std::filesystem::path dir;

  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("wf-campaign-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "locks");
  }
  void TearDown() override {
    for (auto pid : started_) { // a test that failed early leaves its processes: end them
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    std::filesystem::remove_all(dir);
  }

  std::filesystem::path write_campaign(std::uint32_t iterations) {
    const auto file = dir / "campaign.toml";
    std::ofstream out{file};
    out << "name = \"fake-gpus\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/row_reduction/problem.toml\"\n"
        << "[budget]\niterations = " << iterations << "\nbranches = 4\npatience = 10\n"
        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n"
        // Every champion profiled, as under an LLM: kills and resumes meet profiles mid-job.
        << "[profile]\nchampions = \"each\"\n"
        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  // Starts `program args...` with `env` in front of this process's environment (minus any
  // WARPFORGE_ and HOME variables); stdout and stderr are appended to files in dir.
  pid_t spawn(const std::string& program, std::vector<std::string> args,
              std::vector<std::string> env, const std::string& out_name,
              const std::string& err_name) {
    env.push_back("HOME=" + dir.string());
    for (char** e = environ; *e; ++e)
      if (std::string_view{*e}.rfind("WARPFORGE_", 0) != 0 && std::string_view{*e}.rfind("HOME=", 0) != 0)
        env.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    args.insert(args.begin(), program);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&files, 1, (dir / out_name).c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&files, 2, (dir / err_name).c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, program.c_str(), &files, nullptr, argv.data(), envp.data()), 0) << program;
    posix_spawn_file_actions_destroy(&files);
    if (pid > 0) // never 0: kill(0, ...) in TearDown would signal this whole process group
      started_.push_back(pid);
    return pid;
  }

  // Starts `warpforge <args...>` on the stand-in GPUs; stdout and stderr go to files in dir.
  pid_t start(std::vector<std::string> args, int delay_ms = 0) {
    return spawn(WARPFORGE_BIN, std::move(args),
                 {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                  "WARPFORGE_FAKE_RUNNER_DELAY_MS=" + std::to_string(delay_ms),
                  "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                 "stdout.txt", "stderr.txt");
  }

  int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    reaped(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // The threads of `pid` as gdb sees them (when gdb is here): printed when a process a test waits
  // for does not end, so that a hang seen once in CI says where it hung.
  static std::string threads_of(pid_t pid) {
    const std::string command = "gdb -p " + std::to_string(pid) + " -batch -ex 'thread apply all bt 20' 2>&1";
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
      char buffer[4096];
      for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
        out.append(buffer, n);
      ::pclose(pipe);
    }
    return out;
  }

  // The exit code within `timeout`; nullopt (and the process killed, its threads printed) when it
  // did not end.
  std::optional<int> wait_exit_within(pid_t pid, std::chrono::milliseconds timeout) {
    int status = 0;
    for (auto deadline = std::chrono::steady_clock::now() + timeout;
         std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(std::chrono::milliseconds{20}))
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        reaped(pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
    std::fprintf(stderr, "pid %d did not end within %lld ms; its threads:\n%s\n", static_cast<int>(pid),
                 static_cast<long long>(timeout.count()), threads_of(pid).c_str());
    ::kill(pid, SIGKILL);
    wait_exit(pid);
    return std::nullopt;
  }

  std::string text_of(const std::string& name) {
    std::ifstream in{dir / name};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string stderr_text() { return text_of("stderr.txt"); }

  std::filesystem::path run_dir() {
    if (!std::filesystem::exists(dir / "runs"))
      return {};
    for (const auto& entry : std::filesystem::directory_iterator{dir / "runs"})
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
    using namespace std::chrono_literals;
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (!run_dir().empty() && std::filesystem::exists(run_dir() / "warpforge.db") && count(sql) >= n)
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

private:
  // A reaped pid may be reused by another process: TearDown must not signal it.
  void reaped(pid_t pid) { std::erase(started_, pid); }

  std::vector<pid_t> started_; // spawned and not yet reaped
};

} // namespace warpforge::testing
