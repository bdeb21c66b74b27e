// What a newcomer meets first (issue 28), through the real binary: without a GPU, run, bench and
// diagnose say why once (short, no source place) and what to do next; the SASS check never says
// "checked" where no disassembler exists; resume and deploy refuse before they bind anything; the
// Python monitor says how to get pyzmq and ends on a finished run; the dashboard names a taken
// port and the way out. Campaigns that must measure run on the stand-in GPUs (campaign_fixture).

#include "campaign_fixture.hpp"

#include <simdjson.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

constexpr auto monitor_script = WARPFORGE_SOURCE_DIR "/examples/monitor/monitor.py";
constexpr std::string_view next_step =
  "next: build the bundle with scripts/bundle.sh and run it on a GPU node; see docs/deploy.md";
constexpr std::string_view sass_not_checked = "not checked: no disassembler (nvdisasm/cuobjdump not found)";
constexpr auto command_deadline = 120s;

std::size_t occurrences(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// A TCP port this test holds (listening) on 127.0.0.1, closed when it ends.
class held_port {
public:
  held_port() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), size) != 0 || ::listen(fd_, 4) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
      return;
    port_ = ntohs(address.sin_port);
  }
  ~held_port() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  held_port(const held_port&) = delete;
  held_port& operator=(const held_port&) = delete;
  int port() const { return port_; }
  // Whether anyone connected to it (a connection waits in the backlog, never accepted here).
  bool touched() const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }

private:
  int fd_ = -1;
  int port_ = 0;
};

// Sets an environment variable for one test (the spawned binaries inherit it), then restores it.
class scoped_env {
public:
  scoped_env(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name))
      old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

class NewcomerMessages : public campaign_fixture {
protected:
  // `warpforge args...` on this host's own runner (no stand-in GPU); out and err in name.out/.err.
  int warpforge_here(std::vector<std::string> args, const std::string& name) {
    const pid_t pid = spawn(WARPFORGE_BIN, std::move(args), {}, name + ".out", name + ".err");
    return wait_exit_within(pid, command_deadline).value_or(-1);
  }

  // A short campaign on the stand-in GPUs, run to its end; its run directory.
  fs::path finished_run() {
    const auto code = wait_exit_within(start({"run", write_campaign(1).string()}), command_deadline);
    EXPECT_EQ(code, 0) << stderr_text();
    return run_dir();
  }

  // Waits (bounded) until `path` exists.
  bool wait_for_file(const fs::path& path, std::chrono::milliseconds timeout = 60s) {
    for (auto deadline = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (fs::exists(path))
        return true;
    return false;
  }

  // Each stored event's JSON text, in seq order.
  std::vector<std::string> stored_events(const fs::path& run) {
    std::vector<std::string> out;
    auto db = warpforge::storage::database::open_read_only(run / "warpforge.db");
    if (!db)
      return out;
    auto n = db->raw().query_int64("SELECT count(*) FROM events");
    for (std::int64_t seq = 1; n && seq <= *n; ++seq)
      if (auto text = db->raw().query_text("SELECT json FROM events WHERE seq = " + std::to_string(seq)))
        out.push_back(*text);
    return out;
  }

  // The no-GPU lines of a command's stderr: the reason once, short, and the next step once.
  void expect_said_once(const std::string& err, std::string_view verb) {
    const std::string why = "warpforge " + std::string{verb} + ": GPU time not measured (no GPU here: ";
    EXPECT_EQ(occurrences(err, why), 1u) << err;
    EXPECT_EQ(occurrences(err, next_step), 1u) << err;
    EXPECT_EQ(err.find("[gpu/runtime/"), std::string::npos) << "no source place for a newcomer:\n" << err;
    EXPECT_EQ(err.find("job_failed"), std::string::npos) << "no per-job repeat of the reason:\n" << err;
    const auto at = err.find(why);
    ASSERT_NE(at, std::string::npos);
    const auto reason = err.substr(at + why.size(), err.find("); measurements need a GPU", at) - at - why.size());
    EXPECT_FALSE(reason.empty()) << err;
    EXPECT_EQ(occurrences(err, reason), 1u) << "the driver's reason said once: " << reason << "\n" << err;
  }
};

TEST_F(NewcomerMessages, RunWithoutAGpuSaysWhyOnceAndWhatToDoNextAndPrintsNoTable) {
  const int code = warpforge_here({"run", write_campaign(1).string()}, "run");
  if (code != 5)
    GTEST_SKIP() << "this host has a GPU (run exited " << code << ")";
  const auto err = text_of("run.err");
  expect_said_once(err, "run");
  EXPECT_EQ(text_of("run.out").find('|'), std::string::npos) << "no table of unmeasured rows:\n" << text_of("run.out");
  // The run directory keeps the full reason: the campaign's end event says it whole.
  const auto events = stored_events(run_dir());
  ASSERT_FALSE(events.empty());
  EXPECT_NE(events.back().find("\"type\":\"campaign_failed\""), std::string::npos) << events.back();
  EXPECT_NE(events.back().find("measurements need a GPU ("), std::string::npos) << events.back();
  EXPECT_TRUE(fs::exists(run_dir() / "summary.md"));
}

TEST_F(NewcomerMessages, BenchAndDiagnoseWithoutAGpuSayWhyOnceAndWhatToDoNext) {
  const int bench = warpforge_here({"bench", WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml", "--run-root",
                                    (dir / "runs").string()}, "bench");
  if (bench != 5)
    GTEST_SKIP() << "this host has a GPU (bench exited " << bench << ")";
  expect_said_once(text_of("bench.err"), "bench");
  EXPECT_EQ(text_of("bench.out").find("not_run"), std::string::npos) << "no table of unmeasured rows:\n"
                                                                      << text_of("bench.out");

  EXPECT_EQ(warpforge_here({"diagnose", WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml", "--run-root",
                            (dir / "runs").string()}, "diagnose"), 5);
  const auto out = text_of("diagnose.out") + text_of("diagnose.err");
  EXPECT_EQ(occurrences(out, "metrics need a GPU, and none is usable here ("), 1u) << out;
  EXPECT_EQ(occurrences(out, next_step), 1u) << out;
  EXPECT_EQ(out.find("[gpu/runtime/"), std::string::npos) << out;
}

TEST_F(NewcomerMessages, WithoutADisassemblerTheSassIsNotCheckedInTheTableTheEventsAndDoctor) {
  // A toolkit folder without nvdisasm or cuobjdump and a PATH without them: NVRTC still compiles
  // (it is linked); the stand-in GPUs measure.
  fs::create_directories(dir / "no-toolkit");
  scoped_env cuda_home{"CUDA_HOME", (dir / "no-toolkit").string()};
  scoped_env path{"PATH", "/usr/bin:/bin"};
  const auto code = wait_exit_within(start({"bench", WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml",
                                            "--run-root", (dir / "runs").string()}),
                                     command_deadline);
  ASSERT_EQ(code, 0) << stderr_text();
  const auto out = text_of("stdout.txt");
  EXPECT_NE(out.find("code check: PTX checked, SASS " + std::string{sass_not_checked}), std::string::npos) << out;
  EXPECT_EQ(out.find("and checked"), std::string::npos) << out;

  simdjson::dom::parser parser;
  std::size_t compiled = 0;
  for (const auto& text : stored_events(run_dir())) {
    EXPECT_EQ(text.find("and checked"), std::string::npos) << text;
    simdjson::dom::element event;
    ASSERT_EQ(parser.parse(text).get(event), simdjson::SUCCESS) << text;
    if (std::string_view{event["type"]} != "branch_compiled")
      continue;
    ++compiled;
    EXPECT_EQ(std::string_view{event["sass_check"]}, sass_not_checked) << text;
  }
  EXPECT_GE(compiled, 1u);

  EXPECT_EQ(warpforge_here({"doctor"}, "doctor") >= 0, true);
  const auto doctor = text_of("doctor.out");
  const auto verdict = doctor.substr(std::min(doctor.find("Verdict: "), doctor.size()));
  EXPECT_NE(verdict.find(sass_not_checked), std::string::npos) << doctor;
}

TEST_F(NewcomerMessages, ResumeOfALiveRunOnAFixedFeedPortSaysTheCampaignIsRunningWithItsPid) {
  // A fixed feed port (one the kernel just handed out, then let go), as examples/quickstart.toml has.
  int port = 0;
  {
    held_port probe;
    port = probe.port();
  }
  ASSERT_GT(port, 0);
  const auto campaign = write_campaign(200);
  {
    std::string text = text_of("campaign.toml");
    text.replace(text.find("tcp://127.0.0.1:*"), 17, "tcp://127.0.0.1:" + std::to_string(port));
    std::ofstream{campaign} << text;
  }
  const pid_t live = start({"run", campaign.string()}, 200);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events", 1)) << stderr_text();
  ASSERT_TRUE(wait_for_file(run_dir() / "feed.endpoint")) << stderr_text();

  const int code = warpforge_here({"resume", run_dir().string()}, "resume");
  const auto err = text_of("resume.err");
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("campaign is running (pid " + std::to_string(live)), std::string::npos) << err;
  EXPECT_EQ(err.find("in use"), std::string::npos) << "ownership before the port:\n" << err;

  ::kill(live, SIGTERM);
  EXPECT_TRUE(wait_exit_within(live, command_deadline).has_value());
}

TEST_F(NewcomerMessages, DeployOfAJobTheRunLacksIsRefusedBeforeAnySocketOrStoreIsTouched) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto events_before = count("SELECT count(*) FROM events");
  held_port port;
  ASSERT_GT(port.port(), 0);
  const int code = warpforge_here({"deploy", run.string(), "--job", "nosuch", "--feed",
                                   "tcp://127.0.0.1:" + std::to_string(port.port())}, "deploy");
  const auto err = text_of("deploy.err");
  EXPECT_EQ(code, 3) << err;
  EXPECT_NE(err.find("no job 'nosuch'"), std::string::npos) << err;
  EXPECT_NE(err.find("transpose"), std::string::npos) << "names the run's jobs: " << err;
  EXPECT_EQ(err.find("in use"), std::string::npos) << err;
  EXPECT_EQ(err.find("[supervisor]"), std::string::npos) << "no actor started: " << err;
  EXPECT_FALSE(port.touched());
  EXPECT_EQ(count("SELECT count(*) FROM events"), events_before) << "the store was not written";
  EXPECT_FALSE(fs::exists(run / "deploy" / "nosuch"));
}

TEST_F(NewcomerMessages, MonitorWithoutPyzmqSaysHowToInstallItAndExitsTwo) {
  // -S leaves site-packages out, where Debian's python3-zmq installs pyzmq.
  const int without = wait_exit(spawn(WARPFORGE_PYTHON3, {"-S", "-c", "import zmq"}, {}, "probe.out", "probe.out"));
  ASSERT_NE(without, 0) << "pyzmq importable without site-packages: " << text_of("probe.out");
  const int code = wait_exit_within(spawn(WARPFORGE_PYTHON3, {"-S", monitor_script, "tcp://127.0.0.1:9"}, {},
                                          "monitor.out", "monitor.err"),
                                    command_deadline)
                     .value_or(-1);
  const auto err = text_of("monitor.err");
  EXPECT_EQ(code, 2) << err;
  EXPECT_EQ(occurrences(err, "\n"), 1u) << "one line: " << err;
  EXPECT_NE(err.find("apt install python3-zmq"), std::string::npos) << err;
  EXPECT_NE(err.find("pip install pyzmq"), std::string::npos) << err;
  EXPECT_EQ(err.find("Traceback"), std::string::npos) << err;
}

TEST_F(NewcomerMessages, MonitorOnAFinishedRunReplaysToItsEndEventAndExits) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto code = wait_exit_within(spawn(WARPFORGE_PYTHON3, {monitor_script, "--run-dir", run.string(), "--exit-on-end",
                                                               "--json"}, {}, "monitor.out", "monitor.err"),
                                     command_deadline);
  ASSERT_TRUE(code.has_value()) << "the monitor did not end: " << text_of("monitor.err");
  EXPECT_EQ(*code, 0) << text_of("monitor.err");
  std::vector<std::string> lines;
  std::istringstream out{text_of("monitor.out")};
  for (std::string line; std::getline(out, line);)
    lines.push_back(line);
  const auto stored = stored_events(run);
  ASSERT_EQ(lines.size(), stored.size()) << "every stored event once";
  EXPECT_NE(lines.back().find("\"type\":\"campaign_finished\""), std::string::npos) << lines.back();
}

TEST_F(NewcomerMessages, DashboardOnATakenPortNamesThePortAndTheWayToAFreeOne) {
  held_port port;
  ASSERT_GT(port.port(), 0);
  const std::string listen = "127.0.0.1:" + std::to_string(port.port());
  const int code = warpforge_here({"dashboard", "--run-dir", dir.string(), "--listen", listen}, "dashboard");
  const auto err = text_of("dashboard.err");
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("port " + std::to_string(port.port())), std::string::npos) << err;
  EXPECT_NE(err.find("already in use"), std::string::npos) << err;
  EXPECT_NE(err.find("--listen 127.0.0.1:0"), std::string::npos) << err;
}

} // namespace
