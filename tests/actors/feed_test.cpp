// The feed actor's own duties beside publishing, on the real runtime (supervisor, store, feed),
// SQLite in a temporary run directory and ZeroMQ on 127.0.0.1 ephemeral ports: heartbeats that
// are never stored, replay over the network from the store, and the endpoints a monitor needs.

#include "actors/registry.hpp"
#include "actors/runtime.hpp"
#include "feed/heartbeat.hpp"
#include "feed/replay_client.hpp"
#include "feed/subscriber.hpp"
#include "storage/database.hpp"

#include <caf/send.hpp>

#include "runtime_fixture.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;

class Feed : public testing::runtime_fixture {
protected:
  // The feed with its replay endpoint and a quick heartbeat.
  runtime_options options() {
    auto o = runtime_fixture::options();
    o.feed.database = o.database;
    o.feed.replay_endpoint_file = dir / "replay.endpoint";
    o.feed.heartbeat_interval = 100ms;
    return o;
  }

  static feed::event measured(int branch) {
    feed::event e;
    e.type = feed::event_type::branch_measured;
    e.job = "transpose";
    e.iter = 0;
    e.branch = branch;
    return e;
  }

  std::string file_text(const char* name) {
    std::ifstream in{dir / name};
    std::string word;
    in >> word;
    return word;
  }

  std::int64_t stored_count(const char* type) {
    auto db = storage::database::open_read_only(dir / "warpforge.db");
    EXPECT_TRUE(db);
    auto n = db->raw().query_int64(std::string{"SELECT count(*) FROM events WHERE type = '"} + type + "'");
    return n ? *n : -1;
  }

  /// The first event of `type` within 10 s.
  static feed::event next_of_type(feed::subscriber& sub, feed::event_type type) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = sub.receive(100ms);
      if (got && *got && (**got).type == type)
        return **got;
    }
    throw std::runtime_error("no " + std::string{feed::to_string(type)} + " within 10 s");
  }
};

TEST_F(Feed, AQuietFeedBeatsWithTheLastSeqAndTheEndpointsAndNeverStoresTheBeat) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;
  auto sub = feed::subscriber::connect(r.feed_endpoint(), {"heartbeat"});
  ASSERT_TRUE(sub);
  ASSERT_TRUE(r.wait_for_subscribers(1, 10s));
  r.emit(measured(0));

  const auto first = next_of_type(*sub, feed::event_type::heartbeat);
  const auto second = next_of_type(*sub, feed::event_type::heartbeat);
  auto pulse = feed::read_heartbeat(second);
  ASSERT_TRUE(pulse) << to_string(pulse.error());
  EXPECT_EQ(pulse->feed_endpoint, r.feed_endpoint());
  EXPECT_EQ(pulse->replay_endpoint, file_text("replay.endpoint"));
  EXPECT_NE(pulse->replay_endpoint, "");
  EXPECT_DOUBLE_EQ(pulse->interval_s, 0.1);
  EXPECT_EQ(second.campaign, "nightly");
  EXPECT_GE(second.seq, first.seq);
  EXPECT_GT(second.ts, first.ts);
  r.stop();

  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db);
  EXPECT_EQ(stored_count("heartbeat"), 0) << "heartbeats are not part of the event log";
  EXPECT_EQ(static_cast<std::uint64_t>(db->next_event_seq().value() - 1), pulse->last_seq)
    << "a heartbeat's seq is the last stored event's";
}

TEST_F(Feed, ServesEveryStoredEventOverTheNetworkToAMonitorThatCameLate) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;
  for (int i = 0; i < 30; ++i)
    r.emit(measured(i)); // nobody subscribed: lost to PUB/SUB, kept by the store

  auto client = feed::replay_client::connect(file_text("replay.endpoint"));
  ASSERT_TRUE(client);
  // The events are stored a moment after they are published: ask up to the last one.
  std::uint64_t last = 0;
  std::vector<std::int64_t> branches;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       branches.size() < 30 && std::chrono::steady_clock::now() < deadline;) {
    auto page = client->fetch(feed::replay_request{last, std::nullopt, std::nullopt}, 5s);
    ASSERT_TRUE(page) << to_string(page.error());
    for (const auto& e : page->events) {
      EXPECT_EQ(e.decoded.seq, last + 1) << "in order, none left out";
      last = e.decoded.seq;
      if (e.decoded.type == feed::event_type::branch_measured)
        branches.push_back(e.decoded.branch);
    }
  }
  ASSERT_EQ(branches.size(), 30u);
  for (int i = 0; i < 30; ++i)
    EXPECT_EQ(branches[static_cast<std::size_t>(i)], i);
}

TEST_F(Feed, CampaignStartedTellsWhereTheFeedAndItsReplayAre) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;
  auto sub = feed::subscriber::connect(r.feed_endpoint(), {"campaign_"});
  ASSERT_TRUE(sub);
  ASSERT_TRUE(r.wait_for_subscribers(1, 10s));
  feed::event started;
  started.type = feed::event_type::campaign_started;
  started.detail_json = feed::detail{}.add("resumed", false).json();
  r.emit(started);
  const auto got = next_of_type(*sub, feed::event_type::campaign_started);
  simdjson::dom::parser parser;
  auto detail = parser.parse(got.detail_json);
  ASSERT_FALSE(detail.error()) << got.detail_json;
  EXPECT_EQ(detail["resumed"].get_bool().value(), false) << "the producer's fields stay";
  EXPECT_EQ(std::string_view{detail["feed_endpoint"].get_string().value()}, r.feed_endpoint());
  EXPECT_EQ(std::string_view{detail["replay_endpoint"].get_string().value()}, file_text("replay.endpoint"));
}

TEST_F(Feed, AFeedRestartedBySupervisionServesReplayAgainAndSaysWhere) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;
  for (int i = 0; i < 5; ++i)
    r.emit(measured(i));
  const auto before = file_text("replay.endpoint");
  caf::actor_addr feed_before; // weak: a strong handle would keep the dead actor alive
  {
    auto handle = lookup<caf::actor>(r.system(), feed_name);
    ASSERT_TRUE(handle);
    feed_before = handle.address();
    caf::anon_send_exit(handle, caf::exit_reason::kill);
  }
  bool restarted = false;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       !restarted && std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(5ms)) {
    auto now = lookup<caf::actor>(r.system(), feed_name);
    restarted = now && now.address() != feed_before && r.report()->restarts == 1;
  }
  ASSERT_TRUE(restarted);
  r.emit(measured(5));

  // The new feed bound a new free port and wrote it; the old one is closed.
  std::string after;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       (after = file_text("replay.endpoint")) == before && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(10ms);
  ASSERT_NE(after, before);
  auto client = feed::replay_client::connect(after);
  ASSERT_TRUE(client);
  auto page = client->fetch(feed::replay_request{0, std::nullopt, std::nullopt}, 5s);
  ASSERT_TRUE(page) << to_string(page.error());
  EXPECT_GE(page->header.count, 5u) << "the events from before the restart are served too";
}

TEST_F(Feed, AReplayEndpointOtherHostsCouldReachIsRefusedLikeTheFeeds) {
  auto o = options();
  o.feed.replay_endpoint = "tcp://0.0.0.0:*";
  o.supervision.max_restarts = 0;
  auto rt = runtime::start(o);
  ASSERT_FALSE(rt);
  EXPECT_NE(rt.error().find("replay endpoint"), std::string::npos) << rt.error();
  EXPECT_NE(rt.error().find("remote_not_allowed"), std::string::npos) << rt.error();
}

} // namespace
} // namespace warpforge::actors
