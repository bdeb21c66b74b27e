// What warpforge serves or writes for browsers and pipes (issue 22, items 7, 11, 13 and 18),
// through the real `warpforge` binary:
//   - the dashboard answers only requests that name it: another site's Origin, a DNS-rebound Host,
//     no Host at all get 403 and not a byte of a snapshot, HTTP and WebSocket upgrade alike
//     (raw requests over a socket, as an attacker's page or script would send them);
//   - out of file descriptors, the dashboard waits between accepts instead of spinning a core, and
//     serves again once connections close (its RLIMIT_NOFILE lowered with prlimit(2));
//   - a job named `</text><script>alert(1)</script>` reaches the SVG charts and summary.md as
//     text: the charts parse as XML (Debian's /usr/bin/python3) with no script element;
//   - `warpforge run ... | head -3`: the reader going away does not kill the campaign (SIGPIPE),
//     which ends normally with its whole store; `warpforge tail` in a pipeline ends by itself.

#include "tests/apps/cli/campaign_fixture.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;

constexpr std::string_view hostile_name = "</text><script>alert(1)</script>";
constexpr auto socket_timeout = 10s;

/// A TCP socket to 127.0.0.1:port, its reads bounded by socket_timeout; -1 when it fails.
int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  timeval limit{std::chrono::duration_cast<std::chrono::seconds>(socket_timeout).count(), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Sends `request` as written and reads the answer: up to the end of its headers when
/// `headers_only` (a 101 keeps the connection open), else until the server closes.
std::string exchange(std::uint16_t port, const std::string& request, bool headers_only) {
  const int fd = connect_to(port);
  if (fd < 0)
    return "(connect failed)";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return "(send failed)";
  }
  std::string answer;
  char buffer[4096];
  for (;;) {
    const auto n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0)
      break;
    answer.append(buffer, static_cast<std::size_t>(n));
    if (headers_only && answer.find("\r\n\r\n") != std::string::npos)
      break;
  }
  ::close(fd);
  return answer;
}

/// The status code of an HTTP answer ("HTTP/1.1 403 Forbidden" -> 403); 0 when there is none.
int status_of(const std::string& answer) {
  std::smatch m;
  return std::regex_search(answer, m, std::regex{"^HTTP/1\\.[01] ([0-9]{3})"}) ? std::stoi(m[1]) : 0;
}

/// A GET as a browser or script sends it; `host` / `origin` empty: that header is left out.
std::string get_request(const std::string& target, const std::string& host, const std::string& origin,
                        bool upgrade) {
  std::string r = "GET " + target + " HTTP/1.1\r\n";
  if (!host.empty())
    r += "Host: " + host + "\r\n";
  if (!origin.empty())
    r += "Origin: " + origin + "\r\n";
  if (upgrade)
    r += "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
  else
    r += "Connection: close\r\n";
  return r + "\r\n";
}

/// utime + stime of `pid` [clock ticks], from /proc/<pid>/stat; -1 when unreadable.
long cpu_ticks(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  const auto end_of_name = text.rfind(')');
  if (end_of_name == std::string::npos)
    return -1;
  std::istringstream fields{text.substr(end_of_name + 2)};
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) { // field 3 is the state; 14 utime, 15 stime
    if (i == 14)
      utime = std::stol(field);
    if (i == 15) {
      stime = std::stol(field);
      return utime + stime;
    }
  }
  return -1;
}

std::size_t open_descriptors(pid_t pid) {
  std::error_code ec;
  auto entries = fs::directory_iterator{"/proc/" + std::to_string(pid) + "/fd", ec};
  return ec ? 0 : static_cast<std::size_t>(std::distance(entries, fs::directory_iterator{}));
}

class WebOutput : public campaign_fixture {
protected:
  pid_t dashboard_pid = -1;
  std::uint16_t dashboard_port = 0;
  int feed_listener = -1; // where the dashboard's feed subscriber connects: a socket never served

  void TearDown() override {
    if (feed_listener >= 0)
      ::close(feed_listener);
    campaign_fixture::TearDown();
  }

  // `warpforge dashboard` on a free loopback port, following a feed endpoint that accepts the
  // connection and says nothing; returns once its URL is printed (at most 30 s).
  void start_dashboard() {
    feed_listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(feed_listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(feed_listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(feed_listener, 4), 0);
    socklen_t length = sizeof address;
    ::getsockname(feed_listener, reinterpret_cast<sockaddr*>(&address), &length);
    const auto feed = "tcp://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
    dashboard_pid = spawn(WARPFORGE_BIN, {"dashboard", feed, "--listen", "127.0.0.1:0"}, {}, "dashboard.out",
                          "dashboard.err");
    const std::regex url{"http://127\\.0\\.0\\.1:([0-9]+)/"};
    for (auto deadline = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms)) {
      std::smatch m;
      const auto out = text_of("dashboard.out");
      if (std::regex_search(out, m, url)) {
        dashboard_port = static_cast<std::uint16_t>(std::stoi(m[1]));
        return;
      }
    }
    FAIL() << "the dashboard printed no URL: " << text_of("dashboard.err");
  }

  std::string own_host() const { return "127.0.0.1:" + std::to_string(dashboard_port); }

  // Waits (at most 20 s) until GET /snapshot.json answers 200: a snapshot exists to be stolen.
  bool snapshot_ready() {
    for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(50ms))
      if (status_of(exchange(dashboard_port, get_request("/snapshot.json", own_host(), "", false), false)) == 200)
        return true;
    return false;
  }
};

TEST_F(WebOutput, TheDashboardRefusesAnotherSitesOriginAndAReboundHost) {
  ASSERT_NO_FATAL_FAILURE(start_dashboard());
  ASSERT_TRUE(snapshot_ready()) << text_of("dashboard.err");
  const auto port = std::to_string(dashboard_port);
  const std::string own_origin = "http://127.0.0.1:" + port;
  // Controls: the dashboard's own page may read it, by address or by localhost.
  const auto own = exchange(dashboard_port, get_request("/snapshot.json", own_host(), own_origin, false), false);
  EXPECT_EQ(status_of(own), 200) << own;
  EXPECT_NE(own.find("\"snapshot\""), std::string::npos) << own;
  const auto own_ws = exchange(dashboard_port, get_request("/ws", "localhost:" + port, "http://localhost:" + port, true), true);
  EXPECT_EQ(status_of(own_ws), 101) << own_ws;

  struct attempt {
    std::string what, target, host, origin;
    bool upgrade;
  };
  const attempt attempts[] = {
    {"a WebSocket from another site's page", "/ws", own_host(), "http://attacker.example", true},
    {"a WebSocket through a rebound name", "/ws", "attacker.example:" + port, "http://attacker.example:" + port, true},
    {"a WebSocket from a sandboxed page", "/ws", own_host(), "null", true},
    {"a fetch from another site's page", "/snapshot.json", own_host(), "http://attacker.example", false},
    {"a fetch through a rebound name", "/snapshot.json", "attacker.example:" + port, "", false},
    {"the page through a rebound name", "/", "attacker.example:" + port, "", false},
    {"a request with no Host", "/snapshot.json", "", "", false},
  };
  for (const auto& a : attempts) {
    const auto answer = exchange(dashboard_port, get_request(a.target, a.host, a.origin, a.upgrade), false);
    EXPECT_EQ(status_of(answer), 403) << a.what << ":\n" << answer;
    EXPECT_EQ(answer.find("\"snapshot\""), std::string::npos) << a.what << " got a snapshot";
    EXPECT_LT(answer.size(), 1024u) << a.what << ": more than a refusal";
  }
}

TEST_F(WebOutput, OutOfDescriptorsTheDashboardWaitsInsteadOfSpinningAndServesAgain) {
  ASSERT_NO_FATAL_FAILURE(start_dashboard());
  ASSERT_TRUE(snapshot_ready()) << text_of("dashboard.err");
  // A few descriptors more than it holds now; then more idle connections than that.
  constexpr std::size_t spare_descriptors = 4;
  constexpr std::size_t held_connections = 12;
  const std::size_t open_now = open_descriptors(dashboard_pid);
  ASSERT_GT(open_now, 0u);
  rlimit before{};
  ASSERT_EQ(::prlimit(dashboard_pid, RLIMIT_NOFILE, nullptr, &before), 0) << std::strerror(errno);
  const rlimit low{open_now + spare_descriptors, before.rlim_max}; // the soft limit: it can be raised back
  ASSERT_EQ(::prlimit(dashboard_pid, RLIMIT_NOFILE, &low, nullptr), 0) << std::strerror(errno);
  std::vector<int> held;
  for (std::size_t i = 0; i < held_connections; ++i) {
    const int fd = connect_to(dashboard_port); // completes in the kernel's queue even unaccepted
    ASSERT_GE(fd, 0);
    held.push_back(fd);
  }
  // Out of descriptors: every one it may have is open, and connections still wait.
  bool exhausted = false;
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       !exhausted && std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(20ms))
    exhausted = open_descriptors(dashboard_pid) >= low.rlim_cur;
  ASSERT_TRUE(exhausted) << open_descriptors(dashboard_pid) << " of " << low.rlim_cur << " descriptors open";

  // The measurement window: CPU time over 2 s of wall time.
  constexpr auto window = 2s;
  const long ticks_before = cpu_ticks(dashboard_pid);
  std::this_thread::sleep_for(window);
  const long ticks_after = cpu_ticks(dashboard_pid);
  ASSERT_GE(ticks_before, 0);
  const double cpu_share = static_cast<double>(ticks_after - ticks_before) / static_cast<double>(::sysconf(_SC_CLK_TCK)) /
                           std::chrono::duration<double>(window).count();
  EXPECT_LT(cpu_share, 0.2) << "a core spun while accept failed";
  EXPECT_EQ(::waitpid(dashboard_pid, nullptr, WNOHANG), 0) << "the dashboard died: " << text_of("dashboard.err");

  // The connections go, the descriptors come back (the limit too): it serves again.
  for (int fd : held)
    ::close(fd);
  ASSERT_EQ(::prlimit(dashboard_pid, RLIMIT_NOFILE, &before, nullptr), 0);
  EXPECT_TRUE(snapshot_ready()) << "no answer after the connections closed: " << text_of("dashboard.err");
}

class WebOutputCampaign : public WebOutput {
protected:
  // Starts `warpforge <args...>` on the stand-in GPUs with stdout into a pipe and SIGPIPE at its
  // default, as a shell starts a command in a pipeline; the pipe's read end comes back in `reader`.
  pid_t start_piped(std::vector<std::string> args, int& reader, int runner_delay_ms) {
    int pipe_fds[2];
    EXPECT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
    args.insert(args.begin(), WARPFORGE_BIN);
    std::vector<std::string> env = {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                                    "WARPFORGE_FAKE_RUNNER_DELAY_MS=" + std::to_string(runner_delay_ms),
                                    "WARPFORGE_LOCK_DIR=" + (dir / "locks").string(), "HOME=" + dir.string()};
    for (char** e = environ; *e; ++e)
      if (std::string_view{*e}.rfind("WARPFORGE_", 0) != 0 && std::string_view{*e}.rfind("HOME=", 0) != 0)
        env.emplace_back(*e);
    std::vector<char*> argv, envp;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&files, pipe_fds[1], 1);
    posix_spawn_file_actions_addopen(&files, 2, (dir / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &pipe_signal);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, WARPFORGE_BIN, &files, &attributes, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attributes);
    ::close(pipe_fds[1]);
    reader = pipe_fds[0];
    return pid;
  }

  // How `pid` ended within `timeout`: its wait status, nullopt (and killed) when it did not end.
  static std::optional<int> status_within(pid_t pid, std::chrono::seconds timeout) {
    int status = 0;
    for (auto deadline = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (::waitpid(pid, &status, WNOHANG) == pid)
        return status;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return std::nullopt;
  }

  fs::path write_named_campaign(const std::string& name, std::uint32_t iterations) {
    const auto file = write_campaign(iterations);
    std::ifstream in{file};
    std::string text{std::istreambuf_iterator<char>{in}, {}};
    in.close();
    const auto first_line = text.find('\n');
    // A TOML literal string: the name exactly as written, whatever it holds.
    std::ofstream{file} << "name = '" << name << "'" << text.substr(first_line);
    return file;
  }
};

TEST_F(WebOutputCampaign, AHostileNameIsTextInTheChartsAndTheSummary) {
  const auto campaign = write_named_campaign(std::string{hostile_name}, 1);
  const int code = wait_exit_within(start({"run", campaign.string(), "--quiet"}), 180s).value_or(-1);
  ASSERT_EQ(code, 0) << stderr_text();
  // A job of that name too: the spec no longer lets one through, a store written before may
  // hold one (and a report reads any store), so the name is put into the store directly.
  {
    auto db = warpforge::storage::database::open(run_dir() / "warpforge.db");
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->raw().exec("UPDATE jobs SET name = '" + std::string{hostile_name} + "' WHERE id = (SELECT min(id) FROM jobs)"));
  }
  const pid_t report = spawn(WARPFORGE_BIN, {"report", run_dir().string(), "--write"}, {}, "report.out", "report.err");
  ASSERT_EQ(wait_exit_within(report, 60s).value_or(-1), 0) << text_of("report.err");

  std::vector<std::string> charts;
  for (const auto& entry : fs::directory_iterator{run_dir()})
    if (entry.path().extension() == ".svg")
      charts.push_back(entry.path().string());
  ASSERT_GE(charts.size(), 4u) << "two charts per job";
  // Every chart is well-formed XML with no script element anywhere.
  std::vector<std::string> args{"-c",
                                "import sys, xml.etree.ElementTree as E\n"
                                "for f in sys.argv[1:]:\n"
                                "    root = E.parse(f).getroot()\n"
                                "    bad = [e.tag for e in root.iter() if e.tag.split('}')[-1].lower() == 'script']\n"
                                "    assert not bad, f + ': ' + str(bad)\n"
                                "    print('ok', f)\n"};
  args.insert(args.end(), charts.begin(), charts.end());
  const pid_t check = spawn("/usr/bin/python3", args, {}, "xml.out", "xml.err");
  EXPECT_EQ(wait_exit_within(check, 60s).value_or(-1), 0) << text_of("xml.err");
  std::string all_svg;
  for (const auto& chart : charts) {
    std::ifstream in{chart};
    all_svg.append(std::istreambuf_iterator<char>{in}, {});
  }
  EXPECT_NE(all_svg.find("&lt;/text&gt;&lt;script&gt;alert(1)"), std::string::npos) << "the name is shown, as text";

  std::ifstream in{run_dir() / "summary.md"};
  std::string summary{std::istreambuf_iterator<char>{in}, {}};
  std::string lower = summary;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  EXPECT_EQ(lower.find("<script"), std::string::npos) << summary;
  EXPECT_EQ(lower.find("</text"), std::string::npos) << summary;
  EXPECT_NE(summary.find("# &lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << summary;
}

TEST_F(WebOutputCampaign, AReaderThatGoesAwayDoesNotKillTheCampaign) {
  // `warpforge run ... | head -3`: stdout is a pipe whose reader goes away. `run` prints its lines
  // (the headline) when the campaign ends, so the reader leaves while the campaign runs, as head
  // does once it has its lines; warpforge's writes then meet a closed pipe, which killed it.
  const auto campaign = write_named_campaign("piped", 3);
  int reader = -1;
  const pid_t pid = start_piped({"run", campaign.string()}, reader, 100);

  // The reader goes away while the campaign runs: nothing was printed yet, everything will be.
  const bool started = wait_for("SELECT count(*) FROM branches", 1);
  EXPECT_TRUE(started) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM campaigns WHERE state = 'finished'"), 0) << "closed too late to matter";
  ::close(reader);

  const auto ended = status_within(pid, 180s);
  ASSERT_TRUE(ended) << "the campaign did not end within 180 s";
  const int status = *ended;
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status) << ": " << stderr_text();
  EXPECT_EQ(WEXITSTATUS(status), 0) << stderr_text();
  ASSERT_FALSE(run_dir().empty());
  EXPECT_GT(fs::file_size(run_dir() / "warpforge.db"), 0u);
  expect_consistent_store();
  EXPECT_GT(count("SELECT count(*) FROM events"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM jobs WHERE state = 'finished'"), 2);
  EXPECT_TRUE(fs::exists(run_dir() / "summary.md")) << "the report after the campaign was written too";
}

TEST_F(WebOutputCampaign, TailStopsQuietlyWhenItsReaderGoesAway) {
  // `warpforge tail | head -3` on a live campaign: with SIGPIPE ignored, tail must notice the
  // failed write itself and end, not follow the campaign to its end for nobody.
  const auto campaign = write_named_campaign("followed", 30);
  const pid_t run = start({"run", campaign.string(), "--quiet"}, 300);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM branches", 1)) << stderr_text();
  int reader = -1;
  const pid_t tail = start_piped({"tail", "--run-dir", run_dir().string(), "--log"}, reader, 0);
  ::close(reader);
  const auto ended = status_within(tail, 60s);
  ASSERT_TRUE(ended) << "tail went on following with nobody reading";
  EXPECT_FALSE(WIFSIGNALED(*ended)) << "killed by signal " << WTERMSIG(*ended);
  EXPECT_EQ(WIFEXITED(*ended) ? WEXITSTATUS(*ended) : -1, 0) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM campaigns WHERE state = 'finished'"), 0) << "it ended with the campaign, not by itself";
  ::kill(run, SIGINT);
  EXPECT_TRUE(wait_exit_within(run, 60s).has_value());
}

} // namespace
