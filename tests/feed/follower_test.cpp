// The follower against a real publisher, a real run database and a real replay endpoint, all on
// 127.0.0.1 ephemeral ports: every seq handed out once, in order, whatever the feed lost.

#include "feed/follower.hpp"

#include "feed/publisher.hpp"
#include "feed/replay_server.hpp"
#include "feed_test_support.hpp"
#include "tests/storage/scratch_directory.hpp"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace warpforge::feed {
namespace {

using namespace std::chrono_literals;
using testing::ephemeral_loopback;
using testing::io_timeout;
using testing::numbered_event;

/// A campaign's feed without the actors: a publisher, the run database and its replay endpoint.
class FollowerTest : public ::testing::Test {
protected:
  storage::testing::scratch_directory scratch;
  storage::database db = testing::database_with_events(scratch / "warpforge.db", 0);
  publisher pub = publisher::bind(publisher_options{.endpoint = ephemeral_loopback}).value();
  replay_server replay =
    replay_server::start(replay_server_options{.endpoint = ephemeral_loopback,
                                               .database = scratch / "warpforge.db"})
      .value();

  /// What the feed actor does with an event: store it, then publish it.
  void emit(std::uint64_t seq) {
    testing::store_event(db, numbered_event(seq));
    pub.publish(numbered_event(seq));
  }
  /// An event the subscribers never saw (dropped by a full queue, or sent before they joined).
  void emit_unheard(std::uint64_t seq) { testing::store_event(db, numbered_event(seq)); }

  void beat(std::uint64_t last_seq, std::string replay_endpoint) {
    pub.publish(to_event(heartbeat{last_seq, 1.0, pub.endpoint(), std::move(replay_endpoint), last_seq},
                         testing::base_ts, "nightly"));
  }

  follower connect(follower_options options) {
    options.endpoint = pub.endpoint();
    auto f = follower::connect(options);
    if (!f)
      throw std::runtime_error("connect: " + to_string(f.error()));
    if (!pub.wait_for_subscriptions(1, io_timeout))
      throw std::runtime_error("the follower's subscription did not arrive");
    return std::move(*f);
  }

  /// The seqs of the next `count` events, failing when one does not come in time.
  static std::vector<std::uint64_t> take(follower& f, std::size_t count) {
    std::vector<std::uint64_t> seqs;
    const auto deadline = std::chrono::steady_clock::now() + io_timeout;
    while (seqs.size() < count && std::chrono::steady_clock::now() < deadline) {
      auto next = f.next(100ms);
      if (!next)
        throw std::runtime_error("next: " + to_string(next.error()));
      if (*next) {
        EXPECT_NE((*next)->decoded.type, event_type::heartbeat) << "heartbeats are not handed out";
        seqs.push_back((*next)->decoded.seq);
      }
    }
    return seqs;
  }

  static std::vector<std::uint64_t> range(std::uint64_t first, std::uint64_t last) {
    std::vector<std::uint64_t> seqs;
    for (auto seq = first; seq <= last; ++seq)
      seqs.push_back(seq);
    return seqs;
  }

  /// Nothing more arrives within a moment.
  static void expect_nothing_more(follower& f) {
    auto next = f.next(testing::quiet_period);
    ASSERT_TRUE(next);
    EXPECT_FALSE(*next) << "unexpected seq " << (*next)->decoded.seq;
  }
};

TEST_F(FollowerTest, AMonitorStartedLateGetsEverySeqFromOneExactlyOnce) {
  for (std::uint64_t seq = 1; seq <= 20; ++seq)
    emit(seq); // published before anyone subscribed: lost to PUB/SUB, kept by the store
  auto f = connect({.replay_endpoint = replay.endpoint(), .after_seq = 0});
  for (std::uint64_t seq = 21; seq <= 30; ++seq)
    emit(seq);
  EXPECT_EQ(take(f, 30), range(1, 30));
  expect_nothing_more(f);
  EXPECT_GE(f.replayed(), 20u);
  EXPECT_EQ(f.missed(), 0u);
  EXPECT_EQ(f.last_seq(), 30u);
}

TEST_F(FollowerTest, StartsAfterTheGivenSeq) {
  for (std::uint64_t seq = 1; seq <= 8; ++seq)
    emit(seq);
  auto f = connect({.replay_endpoint = replay.endpoint(), .after_seq = 5});
  EXPECT_EQ(take(f, 3), range(6, 8));
  expect_nothing_more(f);
}

TEST_F(FollowerTest, AMonitorThatReadTheStoreItselfReplaysOnlyWhenTheFeedShowsItMissedSome) {
  for (std::uint64_t seq = 1; seq <= 5; ++seq)
    emit_unheard(seq);
  auto f = connect({.replay_endpoint = replay.endpoint(), .after_seq = 3, .replay_at_start = false});
  expect_nothing_more(f);
  EXPECT_EQ(replay.counters().requests, 0u) << "a finished run's tail does not wait on a replay";
  beat(5, replay.endpoint());
  EXPECT_EQ(take(f, 2), range(4, 5));
}

TEST_F(FollowerTest, AGapInTheLiveFeedIsFilledFromTheStoreBeforeLaterEvents) {
  auto f = connect({.replay_endpoint = replay.endpoint(), .after_seq = 0});
  emit(1);
  emit(2);
  EXPECT_EQ(take(f, 2), range(1, 2));
  const auto replayed_before = f.replayed();
  emit_unheard(3); // a slow subscriber's drop
  emit_unheard(4);
  emit(5);
  emit(6);
  EXPECT_EQ(take(f, 4), range(3, 6));
  EXPECT_EQ(f.replayed() - replayed_before, 2u) << "3 and 4 came from the store, 5 and 6 live";
}

TEST_F(FollowerTest, AHeartbeatAheadOfTheLastSeqRevealsEventsMissedInAQuietStretch) {
  auto f = connect({.replay_endpoint = replay.endpoint(), .after_seq = 0});
  emit(1);
  emit_unheard(2);
  beat(2, replay.endpoint());
  EXPECT_EQ(take(f, 2), range(1, 2));
  expect_nothing_more(f);
  ASSERT_TRUE(f.last_heartbeat());
  EXPECT_EQ(f.last_heartbeat()->last_seq, 2u);
}

TEST_F(FollowerTest, LearnsTheReplayEndpointFromAHeartbeat) {
  for (std::uint64_t seq = 1; seq <= 5; ++seq)
    emit_unheard(seq);
  auto f = connect({.after_seq = 0});
  EXPECT_EQ(f.replay_endpoint(), "");
  beat(5, replay.endpoint());
  EXPECT_EQ(take(f, 5), range(1, 5));
  EXPECT_EQ(f.replay_endpoint(), replay.endpoint());
}

TEST_F(FollowerTest, WithoutAStartSeqItBeginsWithWhatIsLive) {
  emit_unheard(1);
  emit_unheard(2);
  auto f = connect({.replay_endpoint = replay.endpoint()});
  emit(3);
  emit(4);
  EXPECT_EQ(take(f, 2), range(3, 4));
  expect_nothing_more(f);
  EXPECT_EQ(f.replayed(), 0u);
}

TEST_F(FollowerTest, AGapNoReplayCanFillIsSkippedAfterTheSilenceTimeoutAndCounted) {
  auto f = connect({.silence = 300ms}); // no replay endpoint, and no heartbeat names one
  pub.publish(numbered_event(1));
  pub.publish(numbered_event(5));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(take(f, 2), (std::vector<std::uint64_t>{1, 5}));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms) << "5 was held while 2..4 might come";
  EXPECT_EQ(f.missed(), 3u);
}

TEST_F(FollowerTest, DuplicatesFromTheFeedAreHandedOutOnce) {
  auto f = connect({.replay_endpoint = replay.endpoint(), .after_seq = 0});
  emit(1);
  pub.publish(numbered_event(1));
  emit(2);
  EXPECT_EQ(take(f, 2), range(1, 2));
  expect_nothing_more(f);
  EXPECT_GE(f.duplicates(), 1u);
}

TEST_F(FollowerTest, HealthGoesFromWaitingToLiveToSilent) {
  auto f = connect({.silence = 200ms});
  EXPECT_EQ(f.health(), feed_health::waiting);
  EXPECT_EQ(f.silent_for_s(), std::nullopt);
  beat(0, replay.endpoint());
  ASSERT_TRUE(f.next(testing::quiet_period)); // takes the heartbeat in
  EXPECT_EQ(f.health(), feed_health::live);
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(f.health(), feed_health::silent);
  EXPECT_GE(f.silent_for_s().value_or(0), 0.3);
}

TEST(FeedHealth, EveryValueRoundTripsThroughItsName) {
  std::set<std::string_view> names;
  for (auto health : all_feed_healths) {
    EXPECT_NE(to_string(health), "unknown");
    EXPECT_TRUE(names.insert(to_string(health)).second);
    EXPECT_EQ(feed_health_from_string(to_string(health)), health);
  }
  EXPECT_EQ(feed_health_from_string("dead"), std::nullopt);
}

} // namespace
} // namespace warpforge::feed
