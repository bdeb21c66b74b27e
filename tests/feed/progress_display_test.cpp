// The terminal progress against a real feed (publisher, run database, replay endpoint on
// 127.0.0.1 ephemeral ports), written to a pipe (plain lines) and to a pseudo-terminal (the block).

#include "feed/progress_display.hpp"

#include "feed/publisher.hpp"
#include "feed/replay_server.hpp"
#include "feed_test_support.hpp"
#include "tests/feed/campaign_events.hpp"
#include "storage/run_directory.hpp"
#include "tests/storage/scratch_directory.hpp"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <thread>

namespace warpforge::feed {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ephemeral_loopback;

/// The events of a short campaign: one job, a baseline of 4 ms, iteration 1 at 2 ms.
std::vector<event> short_campaign() {
  std::vector<event> events;
  auto add = [&](event_type type, std::string job, std::int64_t iter, std::int64_t branch, int gpu,
                 std::string detail_json) {
    events.push_back(testing::campaign_event(events.size() + 1, type, std::move(job), iter, branch, gpu,
                                             std::move(detail_json)));
  };
  add(event_type::campaign_started, {}, no_iter, no_branch, no_gpu, "{}");
  add(event_type::job_started, "transpose", no_iter, no_branch, no_gpu, "{}");
  add(event_type::branch_proposed, "transpose", 1, 0, no_gpu, detail{}.add("kind", "baseline").json());
  add(event_type::gpu_leased, "transpose", 1, 0, 0, "{}");
  add(event_type::branch_measured, "transpose", 1, 0, 0, detail{}.add("time_s", 4e-3).json());
  add(event_type::gpu_released, "transpose", 1, 0, 0, "{}");
  add(event_type::iteration_finished, "transpose", 1, no_branch, no_gpu,
      detail{}.add("champion", true).add("best_s", 2e-3).json());
  return events;
}

class ProgressDisplay : public ::testing::Test {
protected:
  storage::testing::scratch_directory scratch;
  storage::database db = testing::database_with_events(scratch / "warpforge.db", 0);
  publisher pub = publisher::bind(publisher_options{.endpoint = ephemeral_loopback}).value();
  replay_server replay =
    replay_server::start(replay_server_options{.endpoint = ephemeral_loopback,
                                               .database = scratch / "warpforge.db"})
      .value();

  /// Stores and publishes the campaign, as the feed actor does; the display subscribed late or
  /// not, it replays what it missed.
  void run_campaign() {
    for (const auto& e : short_campaign()) {
      testing::store_event(db, e);
      pub.publish(e);
    }
  }

  /// Everything readable from `fd` until it stays quiet for a moment.
  static std::string drain(int fd) {
    std::string text;
    char buffer[4096];
    for (int quiet = 0; quiet < 10;) {
      const auto got = ::read(fd, buffer, sizeof buffer);
      if (got > 0) {
        text.append(buffer, static_cast<std::size_t>(got));
        quiet = 0;
      } else {
        ++quiet;
        std::this_thread::sleep_for(20ms);
      }
    }
    return text;
  }
};

TEST_F(ProgressDisplay, WithoutATerminalItWritesPlainLinesForWhatEndsAndAFinalSummary) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  ::fcntl(pipe_ends[0], F_SETFL, O_NONBLOCK);
  run_campaign(); // before the display starts: all of it comes from the replay endpoint
  auto display = start_progress(pub.endpoint(), progress_options{.replay_endpoint = replay.endpoint(),
                                                                 .fd = pipe_ends[1]});
  std::this_thread::sleep_for(500ms);
  display.stop();
  const auto text = drain(pipe_ends[0]);
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
  EXPECT_THAT(text, HasSubstr("progress: campaign nightly started\n"));
  EXPECT_THAT(text, HasSubstr("progress: transpose started\n"));
  EXPECT_THAT(text, HasSubstr("progress: transpose iteration 1: best 2.00 ms (2.00x), a new champion\n"));
  EXPECT_THAT(text, HasSubstr("; 1 candidates measured; GPUs leased 0/1; transpose 2.00x\n"));
  EXPECT_THAT(text, Not(HasSubstr("\x1b["))) << "no terminal, no escape sequences";
}

TEST_F(ProgressDisplay, OnATerminalItKeepsTheBlockAtTheBottomAndLeavesTheFinalOneThere) {
  int master = -1;
  int slave = -1;
  winsize size{};
  size.ws_row = 24;
  size.ws_col = 100;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, &size), 0);
  ::fcntl(master, F_SETFL, O_NONBLOCK);
  ::setenv("TERM", "xterm-256color", 1); // what a terminal emulator sets
  auto display = start_progress(pub.endpoint(), progress_options{.replay_endpoint = replay.endpoint(),
                                                                 .fd = slave});
  run_campaign();
  std::string text;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       text.find("best 2.00x") == std::string::npos && std::chrono::steady_clock::now() < deadline;)
    text += drain(master);
  EXPECT_THAT(text, HasSubstr("\x1b[1;20r")) << "rows 1-20 scroll, the 4-line block sits below";
  EXPECT_THAT(text, HasSubstr("\x1b[21;1H\x1b[2Kwarpforge nightly: running"));
  EXPECT_THAT(text, HasSubstr("  transpose  iter 1      measured 1     best 2.00x"));
  display.stop();
  const auto final_text = drain(master);
  ::close(master);
  ::close(slave);
  EXPECT_THAT(final_text, HasSubstr("\x1b[r")) << "the scroll region is given back";
  EXPECT_THAT(final_text, HasSubstr("  transpose  iter 1      measured 1     best 2.00x\r\n"))
    << "the final block stays, as plain lines";
}

TEST_F(ProgressDisplay, AtStopItReadsWhatTheFeedDidNotDeliverFromTheRunDirectorysStore) {
  auto dir = storage::run_directory::create(scratch.path(), "nightly", std::chrono::system_clock::now());
  ASSERT_TRUE(dir);
  auto run_db = storage::database::open(dir->database_path());
  ASSERT_TRUE(run_db);
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  ::fcntl(pipe_ends[0], F_SETFL, O_NONBLOCK);
  // No replay endpoint anywhere, and the events never reach the feed: only the store has them.
  auto display = start_progress(pub.endpoint(), progress_options{.run_dir = dir->path(), .fd = pipe_ends[1]});
  for (const auto& e : short_campaign())
    testing::store_event(*run_db, e);
  display.stop();
  const auto text = drain(pipe_ends[0]);
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
  EXPECT_THAT(text, HasSubstr("progress: transpose iteration 1: best 2.00 ms (2.00x), a new champion\n"));
  EXPECT_THAT(text, HasSubstr("transpose 2.00x\n"));
}

TEST_F(ProgressDisplay, ADumbTerminalGetsPlainLines) {
  int master = -1;
  int slave = -1;
  winsize size{};
  size.ws_row = 24;
  size.ws_col = 100;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, &size), 0);
  ::fcntl(master, F_SETFL, O_NONBLOCK);
  ::setenv("TERM", "dumb", 1); // Emacs' shell, some CI consoles: no cursor movement
  run_campaign();
  start_progress(pub.endpoint(), progress_options{.replay_endpoint = replay.endpoint(), .fd = slave}).stop();
  const auto text = drain(master);
  ::close(master);
  ::close(slave);
  EXPECT_THAT(text, HasSubstr("progress: transpose started"));
  EXPECT_THAT(text, Not(HasSubstr("\x1b[")));
}

TEST_F(ProgressDisplay, QuietShowsNothing) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  ::fcntl(pipe_ends[0], F_SETFL, O_NONBLOCK);
  {
    auto display = start_progress(pub.endpoint(), progress_options{.quiet = true, .fd = pipe_ends[1]});
    run_campaign();
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(drain(pipe_ends[0]), "");
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
}

TEST_F(ProgressDisplay, AnEndpointItCannotFollowIsSaidOnceAndNothingMore) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  ::fcntl(pipe_ends[0], F_SETFL, O_NONBLOCK);
  start_progress("udp://nowhere", progress_options{.fd = pipe_ends[1]}).stop();
  EXPECT_THAT(drain(pipe_ends[0]), HasSubstr("progress: cannot follow the feed at udp://nowhere: bad_endpoint"));
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
}

} // namespace
} // namespace warpforge::feed
