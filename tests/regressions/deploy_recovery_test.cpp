// Issue 22, items 5 and 6: a deploy's marker tells a live deploy from a killed one, and every
// point a deploy can be killed at is recoverable. Through the real `warpforge deploy` on a
// finished stand-in campaign (tests/apps/cli/deploy_fixture.hpp): the project's commands go through
// hold.sh, which counts each command's runs and, at the run the test names, says where it is
// (at-<command> holds its pid) and waits on a fifo; the test then kills the deploying warpforge
// with SIGKILL (and the waiting command's process group), or, for a live deploy, runs a second
// warpforge against it and then opens the gate.
//
// The one point no command marks, between the backup and the first write (stage backed_up), is
// covered on hand-written markers in tests/deploy/recover_test.cpp.

#include "tests/apps/cli/deploy_fixture.hpp"

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using warpforge::testing::command_result;
using warpforge::testing::deploy_fixture;

/// How long a deploy may take to reach the command the test waits for.
constexpr auto reach_deadline = 60s;
/// How long a warpforge command may take to end.
constexpr auto command_deadline = 120s;

// Each command counts its runs in count-<name>; at run `cat stop-<name>` it writes its pid to
// at-<name> and blocks until the test writes a line into gate.fifo (or kills it).
constexpr std::string_view hold_script =
  "n=$(( $(cat count-$1 2>/dev/null || echo 0) + 1 )); echo $n > count-$1\n"
  "if [ \"$(cat stop-$1 2>/dev/null)\" = \"$n\" ]; then\n"
  "  echo $$ > at-$1.partial && mv at-$1.partial at-$1\n"
  "  read line < gate.fifo\n"
  "fi\n";

constexpr std::string_view held_deploy_table =
  "[deploy]\n"
  "project = \"app\"\n"
  "file = \"kernel.cu\"\n"
  "region = \"add\"\n"
  "build = \"sh hold.sh build && sh build.sh\"\n"
  "verify = \"sh hold.sh verify && sh check.sh\"\n"
  "time = \"sh hold.sh time && sh bench.sh\"\n"
  "result_key = \"kernel_ms\"\n"
  "repeats = 3\n"
  "gain_threshold = 0.0\n";

/// Where a deploy is killed: the `run`-th run of `command`, deploying the run's champion or, when
/// `source` is set, a kernel saying it (SLOW: the deploy rolls back).
struct kill_point {
  std::string name;       // the test's name
  std::string command;    // build, verify or time
  int run = 1;            // which run of it (time: repeats = 3 before, 3 after)
  std::string source;     // "" = the champion
  bool written = false;   // the target file had been written (stage written) when it died
  bool champion_in_file = false; // the file held the deployed text when it died
};

void PrintTo(const kill_point& point, std::ostream* out) { *out << point.name; }

class deploy_recovery : public deploy_fixture {
protected:
  void SetUp() override {
    deploy_fixture::SetUp();
    write(project / "hold.sh", std::string{hold_script});
    ASSERT_EQ(::mkfifo((project / "gate.fifo").c_str(), 0600), 0) << std::strerror(errno);
    write(dir / "problem.toml", std::string{warpforge::testing::vector_add_problem} + std::string{held_deploy_table});
  }

  void TearDown() override {
    for (auto pid : held_) // a test that failed half-way leaves a command waiting on the gate
      if (const pid_t group = ::getpgid(pid); group > 0 && group != ::getpgrp())
        ::kill(-group, SIGKILL);
    // A parameterised test's name holds a '/': the fixture's folder is one level down.
    const auto parent = dir.parent_path();
    deploy_fixture::TearDown();
    if (parent != fs::temp_directory_path()) {
      std::error_code ignored; // only ever an empty folder of this test's own
      fs::remove(parent, ignored);
    }
  }

  // Starts `warpforge <args...>` as the fixture does; stdout and stderr in dir/<name>.out|err.
  pid_t start_warpforge(std::vector<std::string> args, const std::string& name) {
    return spawn(WARPFORGE_BIN, std::move(args),
                 {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                  "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                 name + ".out", name + ".err");
  }

  // Asks hold.sh to stop at the `run`-th run of `command`.
  void stop_at(const std::string& command, int run) { write(project / ("stop-" + command), std::to_string(run)); }

  int runs_of(const std::string& command) {
    const auto text = read(project / ("count-" + command));
    return text.empty() ? 0 : std::stoi(text);
  }

  // The pid of the command waiting at `command`'s gate, once it is there; 0 when it never came.
  pid_t wait_at(const std::string& command) {
    const auto file = project / ("at-" + command);
    for (auto deadline = std::chrono::steady_clock::now() + reach_deadline; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (fs::exists(file)) {
        const pid_t pid = std::stoi(read(file));
        held_.push_back(pid);
        return pid;
      }
    return 0;
  }

  // Opens the gate: the waiting command reads a line and goes on.
  bool open_gate() {
    for (auto deadline = std::chrono::steady_clock::now() + reach_deadline; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms)) {
      const int fd = ::open((project / "gate.fifo").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) // ENXIO: the command has not opened its end yet
        continue;
      const bool sent = ::write(fd, "go\n", 3) == 3;
      ::close(fd);
      return sent;
    }
    return false;
  }

  // The waiting command and whatever it started: its process group (its shell leads one).
  void end_held(pid_t pid) {
    if (const pid_t group = ::getpgid(pid); group > 0 && group != ::getpgrp())
      ::kill(-group, SIGKILL);
    std::erase(held_, pid);
  }

  command_result finish(pid_t pid, const std::string& name) {
    command_result result;
    result.code = wait_exit_within(pid, command_deadline).value_or(-1);
    result.out = text_of(name + ".out");
    result.err = text_of(name + ".err");
    return result;
  }

  std::vector<pid_t> held_;
};

class deploy_killed : public deploy_recovery, public ::testing::WithParamInterface<kill_point> {};

// Killed at the point, the deploy leaves a marker that refuses the next deploy naming --recover
// (its process is gone); --recover puts the project back as it was before the deploy (the file
// byte for byte, the build from it), closes the killed deploy's row as interrupted, and the
// project is free for the next deploy.
TEST_P(deploy_killed, AtThisPointIsRecoveredAndTheProjectIsFreeAgain) {
  const auto& point = GetParam();
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const std::string original{warpforge::testing::stand_in_kernel};
  stop_at(point.command, point.run);
  std::vector<std::string> args{"deploy", run.string()};
  if (!point.source.empty())
    args.insert(args.end(), {"--source", source_saying(point.source).string()});
  const pid_t deployer = start_warpforge(args, "deploy");
  const pid_t held = wait_at(point.command);
  ASSERT_NE(held, 0) << "the deploy never reached run " << point.run << " of " << point.command << ": "
                     << text_of("deploy.out") << text_of("deploy.err");
  ASSERT_EQ(::kill(deployer, SIGKILL), 0);
  EXPECT_EQ(wait_exit(deployer), 128 + SIGKILL);
  end_held(held);
  fs::remove(project / ("stop-" + point.command));

  ASSERT_TRUE(marker_exists());
  const auto marker = read(project / ".warpforge-deploy.json");
  EXPECT_NE(marker.find(point.written ? "\"stage\":\"written\"" : "\"stage\":\"locked\""), std::string::npos) << marker;
  EXPECT_EQ(kernel_text() != original, point.champion_in_file) << kernel_text();
  const int builds_before_recovery = runs_of("build");

  const auto refused = warpforge({"deploy", run.string()});
  EXPECT_EQ(refused.code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.out.find("is gone): run warpforge deploy --recover"), std::string::npos) << refused.out;

  const auto recovered = warpforge({"deploy", run.string(), "--recover"});
  ASSERT_EQ(recovered.code, 0) << recovered.out << recovered.err;
  EXPECT_NE(recovered.out.find("deploy: recovered"), std::string::npos) << recovered.out;
  EXPECT_EQ(kernel_text(), original) << "byte for byte";
  EXPECT_FALSE(marker_exists());
  const auto recovery_steps = steps_of(3); // 1 the killed deploy, 2 the refused one
  if (point.written) {
    EXPECT_EQ(recovery_steps, (std::vector<std::string>{point.champion_in_file ? "restore:passed" : "restore:skipped",
                                                        "rebuild:passed", "unlock:passed"}));
    EXPECT_EQ(read(project / "build/binary.txt"), original) << "rebuilt from the original";
    EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE id = 1 AND outcome = 'interrupted' AND "
                    "reason LIKE 'killed before it ended; its original was put back%'"), 1)
      << text_query("SELECT reason FROM deployments WHERE id = 1");
  } else {
    EXPECT_EQ(recovery_steps, (std::vector<std::string>{"restore:skipped", "unlock:passed"}));
    EXPECT_EQ(runs_of("build"), builds_before_recovery) << "the original was never replaced: nothing to build";
    EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE id = 1 AND outcome = 'interrupted' AND "
                    "reason LIKE '%stage locked), before it wrote kernel.cu%'"), 1)
      << text_query("SELECT reason FROM deployments WHERE id = 1");
  }
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = ''"), 0) << "every row has its outcome";

  const auto again = warpforge({"deploy", run.string()});
  EXPECT_EQ(again.code, 0) << "the project is free again: " << again.out << again.err;
  EXPECT_NE(again.out.find("deploy: accepted"), std::string::npos) << again.out;
}

// build: 1 the original, 2 the champion, 3 the rebuild of a roll-back; verify: 1 the champion,
// 2 the roll-back's; time: 1-3 the baseline, 4-6 the champion.
INSTANTIATE_TEST_SUITE_P(
  EveryStep, deploy_killed,
  ::testing::Values(kill_point{"BuildingTheOriginalBeforeAnyBackup", "build", 1, "", false, false},
                    kill_point{"TimingTheBaselineBeforeAnyBackup", "time", 2, "", false, false},
                    kill_point{"BuildingTheChampion", "build", 2, "", true, true},
                    kill_point{"VerifyingTheChampion", "verify", 1, "", true, true},
                    kill_point{"TimingTheChampion", "time", 5, "", true, true},
                    kill_point{"RebuildingTheRestoredOriginal", "build", 3, "SLOW", true, false},
                    kill_point{"ReverifyingTheRestoredOriginal", "verify", 2, "SLOW", true, false}),
  [](const ::testing::TestParamInfo<kill_point>& point) { return point.param.name; });

// While a deploy runs (its baseline timing waits at the gate), a --recover from another run of
// the same project refuses naming its pid and changes nothing, a second deploy is refused as
// "running (pid N)" without pointing at --recover, and the live deploy then times the bytes it
// means to: the original (2) before, its champion (1) after, accepted.
TEST_F(deploy_recovery, ADeployThatRunsIsNeitherRecoveredNorJoinedAndEndsAsItWould) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto other_run = dir / "other-run"; // a second run of the same problem: it deploys into the same project
  fs::copy(run, other_run, fs::copy_options::recursive);
  fs::remove(other_run / "owner.lock");
  const std::string original{warpforge::testing::stand_in_kernel};

  stop_at("time", 1);
  const pid_t deployer = start_warpforge({"deploy", run.string()}, "deploy");
  const pid_t held = wait_at("time");
  ASSERT_NE(held, 0) << text_of("deploy.out") << text_of("deploy.err");
  ASSERT_TRUE(marker_exists());
  const auto marker = read(project / ".warpforge-deploy.json");

  const auto recover = warpforge({"deploy", other_run.string(), "--recover"});
  EXPECT_EQ(recover.code, 1) << recover.out << recover.err;
  const std::string pid = std::to_string(deployer);
  EXPECT_NE(recover.out.find("deploy: refused: a deploy by pid " + pid + " started at "), std::string::npos)
    << recover.out;
  EXPECT_NE(recover.out.find(" is running; nothing was changed"), std::string::npos) << recover.out;
  EXPECT_EQ(read(project / ".warpforge-deploy.json"), marker) << "the live deploy's marker is untouched";
  EXPECT_EQ(kernel_text(), original);

  const auto second = warpforge({"deploy", other_run.string()});
  EXPECT_EQ(second.code, 1) << second.out << second.err;
  EXPECT_NE(second.out.find("is running (pid " + pid), std::string::npos) << second.out;
  EXPECT_EQ(second.out.find("--recover"), std::string::npos) << "not while it runs: " << second.out;
  EXPECT_EQ(read(project / ".warpforge-deploy.json"), marker);

  fs::remove(project / "stop-time");
  ASSERT_TRUE(open_gate());
  std::erase(held_, held);
  const auto deployed = finish(deployer, "deploy");
  EXPECT_EQ(deployed.code, 0) << deployed.out << deployed.err;
  EXPECT_NE(deployed.out.find("deploy: accepted"), std::string::npos) << deployed.out;
  EXPECT_NE(deployed.out.find("before: 2 kernel_ms"), std::string::npos) << "the original was timed: " << deployed.out;
  EXPECT_NE(deployed.out.find("after:  1 kernel_ms"), std::string::npos) << deployed.out;
  EXPECT_FALSE(marker_exists());
}

} // namespace
