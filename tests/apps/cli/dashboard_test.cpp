// `warpforge dashboard` in a real headless browser (Debian's chromium) during and after a real
// campaign on the stand-in GPUs: the page, fed over its WebSocket, must show each job with the
// numbers the store holds. Screenshots are kept as evidence in <build>/evidence/. Skipped, with
// the reason, where chromium is not installed or cannot run.

#include "campaign_fixture.hpp"

#include <regex>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

const fs::path evidence_dir = fs::path{WARPFORGE_BINARY_DIR} / "evidence";

/// A job's row as the page rendered it: <tr data-job=".." data-state=".." data-measured=".." ...>.
struct job_row {
  std::string state;
  std::string measured;
  std::string speedup;
};

std::optional<job_row> row_of(const std::string& dom, const std::string& job) {
  const std::regex row{"<tr data-job=\"" + job + "\"([^>]*)>"};
  std::smatch match;
  if (!std::regex_search(dom, match, row))
    return std::nullopt;
  const std::string attributes = match[1];
  auto attribute = [&](const std::string& name) {
    std::smatch value;
    return std::regex_search(attributes, value, std::regex{"data-" + name + "=\"([^\"]*)\""}) ? value[1].str()
                                                                                         : std::string{};
  };
  return job_row{attribute("state"), attribute("measured"), attribute("speedup")};
}

std::string body_attribute(const std::string& dom, const std::string& name) {
  std::smatch value;
  std::regex pattern{"<body[^>]*data-" + name + "=\"([^\"]*)\""};
  return std::regex_search(dom, value, pattern) ? value[1].str() : std::string{};
}

class Dashboard : public campaign_fixture {
protected:
  int browser_runs = 0;

  void SetUp() override {
    campaign_fixture::SetUp();
    if (std::string_view{WARPFORGE_CHROMIUM}.empty())
      GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs Debian's chromium)";
    // Can it run here at all (a sandboxed CI, no /dev/shm, a missing library)?
    const auto probe = run_browser({"--dump-dom", "about:blank"}, "probe");
    if (!probe)
      GTEST_SKIP() << "chromium did not answer within 90 s: " << text_of("probe.err").substr(0, 2000);
    if (probe->find("<html") == std::string::npos)
      GTEST_SKIP() << "chromium cannot run here: " << text_of("probe.err").substr(0, 2000);
  }

  /// Runs headless chromium with `args`; its stdout, or a failure when it does not finish.
  std::string browser(std::vector<std::string> args, const std::string& name) {
    auto out = run_browser(std::move(args), name);
    EXPECT_TRUE(out.has_value()) << "chromium did not finish within 90 s: " << text_of(name + ".err").substr(0, 2000);
    return out.value_or("");
  }

  /// Runs headless chromium with `args` after the common flags; its stdout, nullopt when it did
  /// not finish in time (it is killed).
  std::optional<std::string> run_browser(std::vector<std::string> args, const std::string& name) {
    std::vector<std::string> all{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                 "--no-first-run", "--disable-background-networking",
                                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                                 "--hide-scrollbars",
                                 "--user-data-dir=" + (dir / ("chromium-" + std::to_string(++browser_runs))).string(),
                                 // Virtual time runs the page's script until its WebSocket delivered
                                 // and it drew, then the DOM or the screenshot is taken.
                                 "--virtual-time-budget=5000", "--window-size=1400,1300"};
    all.insert(all.end(), args.begin(), args.end());
    const pid_t pid = spawn(WARPFORGE_CHROMIUM, all, {}, name + ".out", name + ".err");
    if (!wait_exit_within(pid, 90s))
      return std::nullopt;
    return text_of(name + ".out");
  }

  /// Starts `warpforge dashboard --run-dir <run> --listen 127.0.0.1:0`; its URL.
  std::pair<pid_t, std::string> start_dashboard(const std::string& name) {
    const pid_t pid = spawn(WARPFORGE_BIN, {"dashboard", "--run-dir", run_dir().string(), "--listen", "127.0.0.1:0"},
                            {}, name + ".out", name + ".err");
    const std::regex url{"(http://127\\.0\\.0\\.1:[0-9]+/)"};
    for (auto deadline = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms)) {
      std::smatch match;
      const auto out = text_of(name + ".out");
      if (std::regex_search(out, match, url))
        return {pid, match[1].str()};
    }
    ADD_FAILURE() << "the dashboard printed no URL: " << text_of(name + ".err");
    return {pid, {}};
  }

  void screenshot(const std::string& url, const std::string& file) {
    fs::create_directories(evidence_dir);
    browser({"--screenshot=" + (evidence_dir / file).string(), url}, "screenshot");
    EXPECT_GT(fs::exists(evidence_dir / file) ? fs::file_size(evidence_dir / file) : 0u, 10'000u)
      << "no screenshot: " << text_of("screenshot.err").substr(0, 2000);
  }

  /// The page must show `job` with the store's measurement count and speed-up.
  void expect_job_as_stored(const std::string& dom, const std::string& job) {
    auto row = row_of(dom, job);
    ASSERT_TRUE(row) << job << " is not on the page";
    EXPECT_EQ(row->state, "finished") << job;
    // "measured" as docs/report.md defines it: every branch or ablation a GPU gave a verdict,
    // passed or failed there (a failure before any GPU names none).
    EXPECT_EQ(row->measured,
              std::to_string(count("SELECT count(*) FROM events WHERE job = '" + job +
                                   "' AND (type IN ('branch_measured', 'ablation_measured')"
                                   " OR (type = 'branch_failed' AND gpu IS NOT NULL))")))
      << job;
    const auto baseline = count("SELECT CAST(baseline_time_s * 1e12 AS INTEGER) FROM jobs WHERE name = '" + job + "'");
    const auto best = count("SELECT CAST(best_time_s * 1e12 AS INTEGER) FROM jobs WHERE name = '" + job + "'");
    ASSERT_GT(best, 0) << job;
    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.2f", static_cast<double>(baseline) / static_cast<double>(best));
    EXPECT_EQ(row->speedup, speedup) << job << ": the page's speed-up is the store's baseline / best";
  }
};

TEST_F(Dashboard, ABrowserSeesTheJobsAndTheirNumbersLiveAndAfterTheRun) {
  const pid_t campaign = start({"run", write_campaign(4).string()}, 250);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events WHERE type = 'branch_measured'", 4)) << stderr_text();
  auto [live_pid, live_url] = start_dashboard("live");
  ASSERT_FALSE(live_url.empty());

  // During the campaign: the WebSocket delivered, the jobs are there with measurements.
  const auto during = browser({"--dump-dom", live_url}, "during");
  EXPECT_EQ(body_attribute(during, "via"), "websocket") << during.substr(0, 3000);
  EXPECT_EQ(body_attribute(during, "state"), "running") << "the campaign was still running";
  for (const std::string job : {"transpose", "row_reduction"}) {
    auto row = row_of(during, job);
    ASSERT_TRUE(row) << job << " is not on the page: " << during.substr(0, 3000);
    EXPECT_GT(std::stoi(row->measured.empty() ? "0" : row->measured), 0) << job;
  }
  EXPECT_NE(during.find("Speed-up over iterations"), std::string::npos);
  EXPECT_NE(during.find("kernel time over wall time"), std::string::npos) << "the GPU table's busy column";
  EXPECT_NE(during.find(">occupied<"), std::string::npos) << "the GPU table's occupied column";
  screenshot(live_url, "dashboard-live.png");

  ASSERT_EQ(wait_exit(campaign), 0) << stderr_text();
  // The live dashboard has followed the campaign to its end.
  std::string after;
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       body_attribute(after, "state") != "finished" && std::chrono::steady_clock::now() < deadline;)
    after = browser({"--dump-dom", live_url}, "after");
  EXPECT_EQ(body_attribute(after, "state"), "finished") << after.substr(0, 3000);
  EXPECT_EQ(body_attribute(after, "seq"), std::to_string(count("SELECT max(seq) FROM events")));
  expect_job_as_stored(after, "transpose");
  expect_job_as_stored(after, "row_reduction");
  screenshot(live_url, "dashboard-finished.png");

  // A dashboard started on the finished run shows the same from the store alone.
  auto [later_pid, later_url] = start_dashboard("later");
  ASSERT_FALSE(later_url.empty());
  const auto from_store = browser({"--dump-dom", later_url}, "from-store");
  EXPECT_EQ(body_attribute(from_store, "state"), "finished");
  expect_job_as_stored(from_store, "transpose");
  expect_job_as_stored(from_store, "row_reduction");

  for (auto pid : {live_pid, later_pid}) {
    ::kill(pid, SIGINT);
    EXPECT_EQ(wait_exit_within(pid, 10s), 0) << "the dashboard stops cleanly on Ctrl-C";
  }
}

} // namespace
