// Issue 28, "A newcomer's first hour", through the real binary on the stand-in GPUs: the same time
// reads the same in `warpforge status`, `warpforge report --format md` and the dashboard
// snapshot's display fields (foundation/vocabulary/number_text.hpp); the CSV has a column per tunable; `report
// --format kerneltuner` writes Kernel Tuner cache files; docs/report.md's Python example reads the
// run's warpforge.db with the standard library's sqlite3. Where chromium is, the dashboard page draws
// the same words in each job's row.

#include "campaign_fixture.hpp"

#include <simdjson.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <regex>

namespace warpforge::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto command_deadline = 60s;

class ReportFormats : public campaign_fixture {
protected:
  // Runs `warpforge <args>` to its end; its exit code, stdout in `name`.out, stderr in `name`.err.
  int warpforge(std::vector<std::string> args, const std::string& name) {
    const pid_t pid = spawn(WARPFORGE_BIN, std::move(args), {"WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                            name + ".out", name + ".err");
    const auto code = wait_exit_within(pid, command_deadline);
    EXPECT_TRUE(code) << "warpforge " << name << " did not end within " << command_deadline.count() << " s";
    return code.value_or(-1);
  }

  // GET `target` from 127.0.0.1:`port`, the whole response; each read waits at most 10 s.
  static std::string http_get(int port, const std::string& target) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval wait{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                  "\r\nConnection: close\r\n\r\n";
      ::send(fd, request.data(), request.size(), 0);
      char buffer[65536];
      for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        response.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return response;
  }

  // The dashboard's snapshot of the run directory, read over HTTP from the real server, and where
  // this host has chromium, the page as it drew it (its DOM after the script ran).
  std::pair<std::string, std::string> dashboard_snapshot_and_page() {
    const pid_t pid = spawn(WARPFORGE_BIN, {"dashboard", "--run-dir", run_dir().string(), "--listen", "127.0.0.1:0"},
                            {}, "dashboard.out", "dashboard.err");
    const std::regex url{"http://127\\.0\\.0\\.1:([0-9]+)/"};
    std::smatch match;
    std::string printed;
    for (auto deadline = std::chrono::steady_clock::now() + 30s;
         std::chrono::steady_clock::now() < deadline && !std::regex_search(printed, match, url);
         std::this_thread::sleep_for(20ms))
      printed = text_of("dashboard.out");
    if (match.empty()) {
      ADD_FAILURE() << "the dashboard printed no URL: " << text_of("dashboard.err");
      ::kill(pid, SIGTERM);
      wait_exit(pid);
      return {};
    }
    const std::string response = http_get(std::stoi(match[1].str()), "/snapshot.json");
    std::string page;
    const std::string chromium = WARPFORGE_CHROMIUM;
    if (!chromium.empty()) {
      const pid_t browser = spawn(chromium, {"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                             "--user-data-dir=" + (dir / "chromium").string(),
                                             "--virtual-time-budget=5000", "--dump-dom", match[0].str()},
                                  {}, "page.html", "page.err");
      if (wait_exit_within(browser, 90s))
        page = text_of("page.html");
    }
    ::kill(pid, SIGTERM);
    wait_exit_within(pid, 30s);
    const auto body = response.find("\r\n\r\n");
    return {body == std::string::npos ? std::string{} : response.substr(body + 4), page};
  }

  void run_campaign() {
    ASSERT_EQ(wait_exit(start({"run", write_campaign(2).string()})), 0) << stderr_text();
    ASSERT_FALSE(run_dir().empty());
  }
};

TEST_F(ReportFormats, TheSameTimeReadsTheSameInStatusTheReportAndTheDashboardSnapshot) {
  run_campaign();
  ASSERT_EQ(warpforge({"status", run_dir().string()}, "status"), 0) << text_of("status.err");
  ASSERT_EQ(warpforge({"report", run_dir().string(), "--format", "md"}, "report"), 0) << text_of("report.err");
  const std::string status = text_of("status.out");
  const std::string md = text_of("report.out");
  const auto [snapshot, page] = dashboard_snapshot_and_page();
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(snapshot).get(root), simdjson::SUCCESS) << snapshot;

  int compared = 0;
  for (simdjson::dom::element job : root["jobs"].get_array()) {
    const std::string name{job["name"].get_string().value()};
    // status: "  transpose  [finished]  iterations 2  baseline 776 us  best 512 us  speed-up 1.52x"
    std::smatch in_status;
    const std::regex status_line{"  " + name + R"(  \[\w+\]  iterations \d+  baseline (.+?)  best (.+?)(  speed-up (\S+))?\n)"};
    ASSERT_TRUE(std::regex_search(status, in_status, status_line)) << name << ":\n" << status;
    const std::string baseline = in_status[1], best = in_status[2], speedup = in_status[4];
    EXPECT_TRUE(std::regex_match(baseline, std::regex{R"([0-9.]+ (ns|us|ms|s))"})) << "a measured time: " << baseline;
    // The report's headline row: | job | state | baseline | best | speed-up | ...
    EXPECT_NE(md.find("| " + name + " | finished | " + baseline + " | " + best + " | " + speedup + " |"),
              std::string::npos)
        << "status says baseline " << baseline << ", best " << best << ", " << speedup << ":\n" << md;
    // The dashboard: the same words in its display fields.
    simdjson::dom::object display = job["display"].get_object();
    EXPECT_EQ(std::string_view{display["baseline"].get_string().value()}, baseline) << snapshot;
    EXPECT_EQ(std::string_view{display["champion"].get_string().value()}, best) << snapshot;
    EXPECT_EQ(std::string_view{display["speedup"].get_string().value()}, speedup) << snapshot;
    // The page draws the same words in the job's row (where chromium could draw it).
    if (!page.empty()) {
      const auto row = page.find("data-job=\"" + name + "\"");
      ASSERT_NE(row, std::string::npos) << name << " is not on the page";
      const std::string cells = page.substr(row, page.find("</tr>", row) - row);
      for (const auto& figure : {baseline, best, speedup})
        EXPECT_NE(cells.find(">" + figure + "<"), std::string::npos) << name << ": " << figure << " not in " << cells;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 2) << snapshot;
}

TEST_F(ReportFormats, TheCsvPivotsOnTunablesAndKernelTunerReadsTheCacheFiles) {
  run_campaign();
  ASSERT_EQ(warpforge({"report", run_dir().string(), "--format", "csv"}, "csv"), 0) << text_of("csv.err");
  const std::string csv = text_of("csv.out");
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("job,iteration,branch,kind,outcome,methods,defines,", 0), 0u) << "the fixed columns first";
  EXPECT_NE(header.find(",\"tunable:"), std::string::npos) << "a column per tunable: " << header;

  ASSERT_EQ(warpforge({"report", run_dir().string(), "--format", "kerneltuner"}, "kt"), 0) << text_of("kt.err");
  std::istringstream paths{text_of("kt.out")};
  int files = 0;
  for (std::string path; std::getline(paths, path); ++files) {
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_EQ(fs::path{path}.parent_path(), run_dir()) << "written into the run directory";
    simdjson::dom::parser parser;
    simdjson::dom::object cache;
    ASSERT_EQ(parser.load(path).get(cache), simdjson::SUCCESS) << path;
    for (const char* key : {"schema_version", "device_name", "kernel_name", "problem_size", "tune_params_keys",
                            "tune_params", "objective", "cache"})
      EXPECT_EQ(cache.at_key(key).error(), simdjson::SUCCESS) << path << " lacks " << key;
    simdjson::dom::array keys = cache["tune_params_keys"].get_array();
    EXPECT_GT(keys.size(), 0u) << path;
    simdjson::dom::object entries = cache["cache"].get_object();
    EXPECT_GT(entries.size(), 0u) << path;
    for (auto [key, entry] : entries) {
      simdjson::dom::element time;
      ASSERT_EQ(entry["time"].get(time), simdjson::SUCCESS) << key;
      for (simdjson::dom::element name : keys)
        EXPECT_EQ(entry[name.get_string().value()].error(), simdjson::SUCCESS) << key << " lacks a tunable";
    }
  }
  EXPECT_EQ(files, 2) << "one cache per job: " << text_of("kt.out");
}

TEST_F(ReportFormats, TheDocumentedPythonExampleReadsTheStore) {
  const std::string python = WARPFORGE_PYTHON3;
  if (python.empty())
    GTEST_SKIP() << "no python3";
  run_campaign();
  // The example as docs/report.md shows it: the python block after the "tested" marker.
  std::ifstream doc{WARPFORGE_SOURCE_DIR "/docs/report.md"};
  std::stringstream text;
  text << doc.rdbuf();
  const std::string md = text.str();
  const auto marker = md.find("<!-- tested: cli_tests ReportFormats -->");
  ASSERT_NE(marker, std::string::npos) << "docs/report.md lost its tested example";
  const auto start = md.find("```python\n", marker);
  const auto end = md.find("```", start + 10);
  ASSERT_NE(start, std::string::npos);
  { std::ofstream{dir / "example.py"} << md.substr(start + 10, end - start - 10); }
  const pid_t pid = spawn(python, {(dir / "example.py").string(), run_dir().string()}, {}, "py.out", "py.err");
  const auto code = wait_exit_within(pid, command_deadline);
  ASSERT_EQ(code.value_or(-1), 0) << text_of("py.err");
  // One line per measurement, as many as the store holds.
  std::istringstream out{text_of("py.out")};
  std::int64_t lines = 0;
  for (std::string line; std::getline(out, line);)
    lines += !line.empty();
  EXPECT_EQ(lines, count("SELECT count(*) FROM measurements")) << text_of("py.out");
  EXPECT_GT(lines, 0);
}

} // namespace
} // namespace warpforge::testing
