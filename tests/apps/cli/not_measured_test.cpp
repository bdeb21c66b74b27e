// Issue 21, "No invented numbers anywhere", through the real binary on a host without a GPU:
// `warpforge calibrate` and `warpforge run` measure nothing there, so every output that has a
// place for a measured figure (the printed summaries, results.json, measurements.tsv, report.md,
// `warpforge report` in md / json / csv, `warpforge status` and --json, the dashboard's snapshot,
// the events in the store) must say "not measured" with the reason, or hold null beside a
// not_measured_reason, and never a number. Counts that are real (trials kept 0, iterations done,
// kernels compiled) may stay. On a host with a GPU the tests skip: there the figures are real.

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

constexpr auto run_deadline = 240s;  // a calibrate slice builds two benchmarks with nvcc
constexpr auto command_deadline = 60s;

// Detail members that carry a measured figure (docs/events.md); each must be null here.
const std::vector<std::string_view> measured_event_keys = {
  "time_s", "best_s", "baseline_s", "speedup", "value", "cv", "median", "ci95_low_s", "ci95_high_s",
  "kernel_s", "gpu_busy_fraction", "worker_occupancy", "gpu_wait_for_compile_s", "peak_fraction",
  "achieved_flops", "achieved_bandwidth"};

// The lines of `text`.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

class NotMeasured : public campaign_fixture {
protected:
  // The run directory under dir/runs (calibrate keeps its notes file beside it).
  fs::path the_run() {
    if (fs::exists(dir / "runs"))
      for (const auto& entry : fs::directory_iterator{dir / "runs"})
        if (entry.is_directory())
          return entry.path();
    return {};
  }

  // Runs `warpforge <args>` with no stand-in runner (this host's real GPUs: none) to its end;
  // its exit code, stdout in `name`.out and stderr in `name`.err.
  int warpforge(std::vector<std::string> args, const std::string& name,
                std::chrono::milliseconds deadline = command_deadline) {
    const pid_t pid = spawn(WARPFORGE_BIN, std::move(args), {"WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                            name + ".out", name + ".err");
    const auto code = wait_exit_within(pid, deadline);
    EXPECT_TRUE(code) << "warpforge " << name << " did not end within " << deadline.count() << " ms";
    return code.value_or(-1);
  }

  // A --json command's output, parsed; the document stays in `parser`.
  simdjson::dom::element json_of(simdjson::dom::parser& parser, const std::string& name) {
    simdjson::dom::element root;
    const std::string text = text_of(name + ".out");
    EXPECT_EQ(parser.parse(text).get(root), simdjson::SUCCESS) << name << ": " << text;
    return root;
  }

  // Every event in the run's store: a measured member is null, and an event with one has a reason.
  void expect_events_without_numbers() {
    auto db = storage::database::open_read_only(the_run() / "warpforge.db");
    ASSERT_TRUE(db);
    auto events = db->events_since(0, 100000);
    ASSERT_TRUE(events);
    ASSERT_FALSE(events->empty());
    simdjson::dom::parser parser;
    for (const auto& e : *events) {
      simdjson::dom::object object;
      ASSERT_EQ(parser.parse(e.json).get(object), simdjson::SUCCESS) << e.json;
      bool any_null = false;
      for (auto key : measured_event_keys) {
        simdjson::dom::element member;
        if (object[key].get(member) != simdjson::SUCCESS)
          continue;
        EXPECT_TRUE(member.is_null()) << e.type << "'s " << key << " is a number where nothing was measured: "
                                      << e.json;
        any_null = any_null || member.is_null();
      }
      if (any_null) {
        simdjson::dom::element reason;
        EXPECT_EQ(object["not_measured_reason"].get(reason), simdjson::SUCCESS)
          << e.type << " has a null figure without its reason: " << e.json;
      }
    }
  }

  // The dashboard's snapshot of the run directory, read over HTTP from the real server.
  std::string dashboard_snapshot() {
    const pid_t pid = spawn(WARPFORGE_BIN, {"dashboard", "--run-dir", the_run().string(), "--listen", "127.0.0.1:0"},
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
    const int port = std::stoi(match[1].str());
    std::string response = http_get(port, "/snapshot.json");
    ::kill(pid, SIGTERM);
    wait_exit_within(pid, 30s);
    const auto body = response.find("\r\n\r\n");
    EXPECT_NE(response.find(" 200 "), std::string::npos) << response.substr(0, 300);
    return body == std::string::npos ? std::string{} : response.substr(body + 4);
  }

  // GET `target` from 127.0.0.1:`port` (HTTP/1.1, Connection: close), the whole response; each
  // read waits at most 10 s.
  static std::string http_get(int port, const std::string& target) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval wait{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                  "\r\nConnection: close\r\n\r\n";
      if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
        char buffer[8192];
        for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
          response.append(buffer, static_cast<std::size_t>(n));
      }
    }
    ::close(fd);
    return response;
  }

  // The quickstart example as a campaign of this test's own: its run directory here, an ephemeral
  // feed port, the example problems by absolute path.
  fs::path quickstart_campaign() {
    std::ifstream in{WARPFORGE_SOURCE_DIR "/examples/quickstart.toml"};
    std::ostringstream text;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("run_root", 0) == 0)
        line = "run_root = \"" + (dir / "runs").string() + "\"";
      else if (line.rfind("endpoint", 0) == 0)
        line = "endpoint = \"tcp://127.0.0.1:*\"";
      else if (line.rfind("problem = \"", 0) == 0)
        line = "problem = \"" WARPFORGE_SOURCE_DIR "/examples/" + line.substr(11);
      text << line << '\n';
    }
    const auto file = dir / "quickstart.toml";
    std::ofstream{file} << text.str();
    return file;
  }
};

TEST_F(NotMeasured, CalibrateWithoutAGpuPrintsAndWritesNoMeasuredValue) {
  const int code = warpforge({"calibrate", "--only", "fp32_fma_latency", "--only", "fp64_fma_latency", "--trials", "3",
                              "--run-root", (dir / "runs").string()},
                             "calibrate", run_deadline);
  if (code != 5)
    GTEST_SKIP() << "this host has a GPU (calibrate exited " << code << "): " << text_of("calibrate.err");
  const auto out = text_of("calibrate.out");
  for (const char* name : {"fp32_fma_latency", "fp64_fma_latency"}) {
    bool listed = false;
    for (const auto& line : lines_of(out))
      if (line.rfind(name, 0) == 0) {
        listed = true;
        EXPECT_NE(line.find("not measured: "), std::string::npos) << line;
      }
    EXPECT_TRUE(listed) << name << " missing from:\n" << out;
  }
  EXPECT_NE(out.find("0 of 2 passed; 0 measured now (2 more tried, not measured)"), std::string::npos) << out;
  EXPECT_EQ(out.find("0.00%"), std::string::npos) << "no CV where nothing was measured:\n" << out;

  // results.json: null value, delta and statistics, each result with its reason.
  simdjson::dom::parser parser;
  simdjson::dom::element results;
  ASSERT_EQ(parser.parse(text_of("runs/" + the_run().filename().string() + "/results.json")).get(results),
            simdjson::SUCCESS);
  simdjson::dom::array parameters = results["parameters"];
  ASSERT_EQ(parameters.size(), 2u);
  for (simdjson::dom::element r : parameters) {
    EXPECT_TRUE(r["value"].is_null()) << simdjson::minify(r);
    EXPECT_TRUE(r["delta"].is_null()) << simdjson::minify(r);
    EXPECT_FALSE(std::string_view{r["not_measured_reason"]}.empty()) << simdjson::minify(r);
    for (const char* key : {"median", "mean", "stddev", "cv", "ci95_low", "ci95_high", "ci_level"})
      EXPECT_TRUE(r["stats"][key].is_null()) << key << ": " << simdjson::minify(r);
  }

  // measurements.tsv: the figures empty, the reason in the last column.
  const auto tsv = lines_of(text_of("runs/" + the_run().filename().string() + "/measurements.tsv"));
  ASSERT_EQ(tsv.size(), 3u);
  for (std::size_t i = 1; i < tsv.size(); ++i) {
    std::vector<std::string> fields;
    std::istringstream row{tsv[i]};
    for (std::string field; std::getline(row, field, '\t');)
      fields.push_back(field);
    ASSERT_GE(fields.size(), 16u) << tsv[i];
    for (std::size_t column : {1, 3, 4, 5, 6, 7, 8}) // value mean median std_dev CV CI_low CI_high
      EXPECT_EQ(fields[column], "") << "column " << column << " of " << tsv[i];
    EXPECT_FALSE(fields[15].empty()) << "no reason in " << tsv[i];
  }

  // report.md: each row's value says not measured, and why.
  const auto md = text_of("runs/" + the_run().filename().string() + "/report.md");
  EXPECT_NE(md.find("2 parameter(s): 0 measured, 2 not measured."), std::string::npos) << md;
  for (const auto& line : lines_of(md)) {
    if (line.rfind("| fp", 0) == 0) {
      EXPECT_NE(line.find("| not measured ("), std::string::npos) << line;
    }
  }

  expect_events_without_numbers();
  EXPECT_EQ(warpforge({"status", the_run().string(), "--json"}, "status"), 0) << text_of("status.err");
  simdjson::dom::parser status_parser;
  for (simdjson::dom::element job : json_of(status_parser, "status")["jobs"].get_array()) {
    EXPECT_TRUE(job["baseline_time_s"].is_null());
    EXPECT_FALSE(std::string_view{job["not_measured_reason"]}.empty()) << simdjson::minify(job);
  }
  const std::string snapshot = dashboard_snapshot();
  simdjson::dom::parser snapshot_parser;
  simdjson::dom::element root;
  ASSERT_EQ(snapshot_parser.parse(snapshot).get(root), simdjson::SUCCESS) << snapshot;
  simdjson::dom::array jobs = root["jobs"];
  EXPECT_EQ(jobs.size(), 2u) << snapshot;
  for (simdjson::dom::element job : jobs) {
    EXPECT_TRUE(job["best_measured_s"].is_null()) << simdjson::minify(job);
    EXPECT_NE(std::string_view{job["not_measured_reason"]}.find("not run: no GPU"), std::string_view::npos)
      << simdjson::minify(job);
  }
}

TEST_F(NotMeasured, RunWithoutAGpuAndEveryViewOfItsRunDirectoryShowNoMeasuredValue) {
  const int code = warpforge({"run", quickstart_campaign().string()}, "run", run_deadline);
  if (code != 5)
    GTEST_SKIP() << "this host has a GPU (run exited " << code << "): " << text_of("run.err");
  ASSERT_FALSE(the_run().empty());
  const std::vector<std::string> jobs = {"vector_add", "transpose", "row_reduction"};

  // summary.md's headline: the four figures of each job say not measured (the reason once); the
  // iterations done (0) is a count. (The terminal prints no headline without a GPU, only why and
  // what to do next: first_hour_messages_test.)
  for (const std::string& printed : {text_of("runs/" + the_run().filename().string() + "/summary.md")}) {
    for (const auto& job : jobs) {
      const auto at = printed.find("| " + job + " |");
      ASSERT_NE(at, std::string::npos) << job << " not in:\n" << printed;
      const auto row = printed.substr(at, printed.find('\n', at) - at);
      // baseline: "not measured (why)"; best, speed-up, peak fraction: "not measured" (the reason
      // is given once a row); iterations done: 0, a count.
      EXPECT_EQ(row.rfind("| " + job + " | failed | not measured (", 0), 0u) << row;
      EXPECT_NE(row.find("measurements need a GPU"), std::string::npos) << "the reason: " << row;
      EXPECT_TRUE(row.ends_with(") | not measured | not measured | not measured | 0 |")) << row;
    }
  }
  EXPECT_NE(text_of("run.err").find("GPU time not measured (no GPU"), std::string::npos) << text_of("run.err");
  EXPECT_EQ(text_of("run.err").find("GPU busy 0%"), std::string::npos) << text_of("run.err");

  // warpforge report --format json: nulls with their reasons, per job and per branch.
  ASSERT_EQ(warpforge({"report", the_run().string(), "--format", "json"}, "report-json"), 0) << text_of("report-json.err");
  simdjson::dom::parser parser;
  simdjson::dom::element report = json_of(parser, "report-json");
  for (simdjson::dom::element job : report["jobs"].get_array()) {
    for (const char* key : {"baseline_time_s", "best_time_s", "speedup", "peak_fraction"}) {
      EXPECT_TRUE(job[key].is_null()) << key << ": " << simdjson::minify(job);
      EXPECT_FALSE(std::string_view{job["not_measured_reason"][key]}.empty()) << key;
    }
    for (simdjson::dom::element iteration : job["iterations"].get_array())
      for (simdjson::dom::element branch : iteration["branches"].get_array()) {
        EXPECT_TRUE(branch["best_time_s"].is_null()) << simdjson::minify(branch);
        EXPECT_FALSE(std::string_view{branch["not_measured_reason"]}.empty()) << simdjson::minify(branch);
      }
  }

  // --format md: the same headline; --format csv: empty figures and the reason per branch.
  ASSERT_EQ(warpforge({"report", the_run().string(), "--format", "md"}, "report-md"), 0);
  EXPECT_NE(text_of("report-md.out").find("| not measured ("), std::string::npos) << text_of("report-md.out");
  ASSERT_EQ(warpforge({"report", the_run().string(), "--format", "csv"}, "report-csv"), 0);
  const auto csv = lines_of(text_of("report-csv.out"));
  ASSERT_GE(csv.size(), 2u);
  // The reason right after the figures (the tunable and method columns follow it).
  EXPECT_NE(csv[0].find(",samples,not_measured_reason"), std::string::npos) << csv[0];
  for (std::size_t i = 1; i < csv.size(); ++i) {
    EXPECT_NE(csv[i].find(",,,,,,,,\""), std::string::npos) << "gpu .. samples empty, then the reason: " << csv[i];
    EXPECT_EQ(csv[i].find(",,,,,,,,\"\""), std::string::npos) << "the reason is not empty: " << csv[i];
  }

  // warpforge status, text and --json.
  ASSERT_EQ(warpforge({"status", the_run().string()}, "status"), 0) << text_of("status.err");
  for (const auto& line : lines_of(text_of("status.out"))) {
    if (line.find("  baseline ") != std::string::npos) {
      EXPECT_NE(line.find("baseline not measured  best not measured"), std::string::npos) << line;
    }
  }
  EXPECT_NE(text_of("status.out").find("measurements need a GPU"), std::string::npos) << text_of("status.out");
  ASSERT_EQ(warpforge({"status", the_run().string(), "--json"}, "status-json"), 0);
  simdjson::dom::parser status_parser;
  for (simdjson::dom::element job : json_of(status_parser, "status-json")["jobs"].get_array()) {
    EXPECT_TRUE(job["baseline_time_s"].is_null());
    EXPECT_TRUE(job["best_time_s"].is_null());
    EXPECT_FALSE(std::string_view{job["not_measured_reason"]}.empty()) << simdjson::minify(job);
  }

  // The dashboard's snapshot: every job's figures null, the reason beside them.
  const std::string snapshot = dashboard_snapshot();
  simdjson::dom::parser snapshot_parser;
  simdjson::dom::element root;
  ASSERT_EQ(snapshot_parser.parse(snapshot).get(root), simdjson::SUCCESS) << snapshot;
  simdjson::dom::array snapshot_jobs = root["jobs"];
  EXPECT_EQ(snapshot_jobs.size(), jobs.size());
  for (simdjson::dom::element job : snapshot_jobs) {
    for (const char* key : {"baseline_s", "best_measured_s", "champion_s", "speedup"})
      EXPECT_TRUE(job[key].is_null()) << key << ": " << simdjson::minify(job);
    EXPECT_FALSE(std::string_view{job["not_measured_reason"]}.empty()) << simdjson::minify(job);
  }

  expect_events_without_numbers();
}

TEST_F(NotMeasured, BenchWithoutAGpuHasNullsWithReasonsInItsJson) {
  const int code = warpforge({"bench", WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml", "--json",
                              "--run-root", (dir / "runs").string()},
                             "bench", run_deadline);
  if (code != 5)
    GTEST_SKIP() << "this host has a GPU (bench exited " << code << "): " << text_of("bench.err");
  simdjson::dom::parser parser;
  simdjson::dom::element root = json_of(parser, "bench");
  EXPECT_TRUE(root["gpu_busy_fraction"].is_null()) << text_of("bench.out");
  EXPECT_FALSE(std::string_view{root["not_measured_reason"]}.empty());
  simdjson::dom::array kernels = root["kernels"];
  ASSERT_GE(kernels.size(), 1u);
  for (simdjson::dom::element kernel : kernels) {
    EXPECT_TRUE(kernel["time_s"].is_null()) << simdjson::minify(kernel);
    EXPECT_NE(std::string_view{kernel["not_measured_reason"]}.find("measurements need a GPU"), std::string_view::npos)
      << simdjson::minify(kernel);
  }
  expect_events_without_numbers();
}

} // namespace
} // namespace warpforge::testing
