// examples/monitor/monitor.py (Python, pyzmq from Debian's python3-zmq) watching a real campaign
// on the stand-in GPUs over the network, as a monitor on another machine would: it knows only
// the feed's endpoint, learns the replay endpoint from a heartbeat, starts late, and must still
// see every event exactly once; and it must tell a quiet campaign from a dead one.

#include "campaign_fixture.hpp"

#include <simdjson.h>

#include <numeric>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

constexpr auto monitor_script = WARPFORGE_SOURCE_DIR "/examples/monitor/monitor.py";

class Monitor : public campaign_fixture {
protected:
  void SetUp() override {
    campaign_fixture::SetUp();
    // Debian's interpreter: python3-zmq installs pyzmq for it (scripts/setup.sh).
    const int probe = wait_exit(spawn(WARPFORGE_PYTHON3, {"-c", "import zmq"}, {}, "probe.txt", "probe.txt"));
    ASSERT_EQ(probe, 0) << WARPFORGE_PYTHON3 << " cannot import zmq (scripts/setup.sh installs "
                        << "python3-zmq): " << text_of("probe.txt");
  }

  pid_t start_monitor(std::vector<std::string> args) {
    args.insert(args.begin(), monitor_script);
    return spawn(WARPFORGE_PYTHON3, std::move(args), {}, "monitor.out", "monitor.err");
  }

  std::string endpoint_file(const char* name) {
    std::ifstream in{run_dir() / name};
    std::string endpoint;
    in >> endpoint;
    return endpoint;
  }

  // Waits until the campaign has written its feed endpoint.
  std::string feed_endpoint() {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (!run_dir().empty())
        if (auto endpoint = endpoint_file("feed.endpoint"); !endpoint.empty())
          return endpoint;
    return {};
  }
};

TEST_F(Monitor, StartedLateItReceivesEverySeqFromOneExactlyOnce) {
  const pid_t campaign = start({"run", write_campaign(4).string()}, 150);
  const auto endpoint = feed_endpoint();
  ASSERT_FALSE(endpoint.empty()) << stderr_text();
  // Late: these events were published before the monitor existed, so only a replay brings them.
  constexpr std::int64_t published_before = 30;
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events", published_before)) << stderr_text();

  const pid_t monitor = start_monitor({endpoint, "--json", "--exit-on-end"});
  const auto monitor_exit = wait_exit_within(monitor, 120s);
  ASSERT_EQ(wait_exit(campaign), 0) << stderr_text();
  ASSERT_EQ(monitor_exit, 0) << text_of("monitor.err");
  EXPECT_GT(count("SELECT count(*) FROM events"), published_before + 20)
    << "the campaign went on long after the monitor started, so it also saw events live";

  std::vector<std::int64_t> seqs;
  std::string last_type;
  simdjson::dom::parser parser;
  std::istringstream lines{text_of("monitor.out")};
  for (std::string line; std::getline(lines, line);) {
    auto e = parser.parse(line);
    ASSERT_FALSE(e.error()) << line;
    seqs.push_back(e["seq"].get_int64().value());
    last_type = std::string{e["type"].get_string().value()};
    EXPECT_NE(last_type, "heartbeat") << "heartbeats are not events of the campaign";
  }
  ASSERT_FALSE(seqs.empty()) << text_of("monitor.err");
  std::vector<std::int64_t> every_seq(static_cast<std::size_t>(count("SELECT max(seq) FROM events")));
  std::iota(every_seq.begin(), every_seq.end(), 1);
  EXPECT_EQ(seqs, every_seq) << "every seq from 1 to the last stored, once each, in order";
  EXPECT_EQ(last_type, "campaign_finished");
}

TEST_F(Monitor, HeartbeatsKeepAQuietCampaignAliveAndSilenceMarksADeadOne) {
  // Each candidate takes 4 s on its stand-in GPU: stretches without an event, longer than the
  // monitor's silence threshold (2 s) even where the two GPUs' events interleave, in which only
  // heartbeats (every second) are heard.
  const pid_t campaign = start({"run", write_campaign(3).string()}, 4000);
  const auto endpoint = feed_endpoint();
  ASSERT_FALSE(endpoint.empty()) << stderr_text();
  const pid_t monitor = start_monitor({endpoint, "--live", "--silence", "2", "--exit-on-silence"});
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events WHERE type = 'branch_measured'", 4)) << stderr_text();
  EXPECT_EQ(::waitpid(monitor, nullptr, WNOHANG), 0) << "the monitor quit while the campaign ran: "
                                                     << text_of("monitor.err");
  EXPECT_EQ(text_of("monitor.err").find("silent"), std::string::npos) << text_of("monitor.err");
  EXPECT_GE(count("SELECT CAST(max(b.ts - a.ts) * 1000 AS INTEGER) FROM events a JOIN events b "
                  "ON b.seq = a.seq + 1"),
            2000)
    << "the campaign was quiet for longer than the silence threshold at least once";

  ::kill(campaign, SIGKILL); // the campaign dies without a word: no campaign_* event, no heartbeat
  wait_exit(campaign);
  const auto monitor_exit = wait_exit_within(monitor, 30s);
  EXPECT_EQ(monitor_exit, 3) << text_of("monitor.err");
  EXPECT_NE(text_of("monitor.err").find("campaign silent for"), std::string::npos) << text_of("monitor.err");
}

TEST_F(Monitor, AFeedThatNeverAnswersIsReportedSilent) {
  const pid_t monitor = start_monitor({"tcp://127.0.0.1:9", "--silence", "1", "--exit-on-silence"});
  EXPECT_EQ(wait_exit_within(monitor, 30s), 3) << text_of("monitor.err");
  EXPECT_NE(text_of("monitor.err").find("campaign silent for"), std::string::npos) << text_of("monitor.err");
}

} // namespace
