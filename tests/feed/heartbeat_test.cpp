#include "feed/heartbeat.hpp"

#include "feed/event_json.hpp"

#include <gtest/gtest.h>

namespace warpforge::feed {
namespace {

heartbeat sample_pulse() {
  return heartbeat{41, 1.0, "tcp://127.0.0.1:5757", "tcp://127.0.0.1:5758", 57};
}

TEST(Heartbeat, CarriesTheLastPublishedSeqAsItsOwnAndTheRestInItsDetail) {
  auto e = to_event(sample_pulse(), 1764000000.5, "nightly");
  EXPECT_EQ(e.type, event_type::heartbeat);
  EXPECT_EQ(e.seq, 41u);
  EXPECT_EQ(e.campaign, "nightly");
  EXPECT_EQ(encode(e),
            R"({"schema":1,"seq":41,"ts":1764000000.5,"campaign":"nightly","job":null,"iter":null,)"
            R"("branch":null,"gpu":null,"type":"heartbeat","interval_s":1,)"
            R"("feed_endpoint":"tcp://127.0.0.1:5757","replay_endpoint":"tcp://127.0.0.1:5758",)"
            R"("published_total":57})");
}

TEST(Heartbeat, ReadsBackWhatItWrote) {
  auto wire = decode(encode(to_event(sample_pulse(), 1764000000.5, "nightly")));
  ASSERT_TRUE(wire);
  auto pulse = read_heartbeat(*wire);
  ASSERT_TRUE(pulse) << to_string(pulse.error());
  EXPECT_EQ(pulse->last_seq, 41u);
  EXPECT_EQ(pulse->interval_s, 1.0);
  EXPECT_EQ(pulse->feed_endpoint, "tcp://127.0.0.1:5757");
  EXPECT_EQ(pulse->replay_endpoint, "tcp://127.0.0.1:5758");
  EXPECT_EQ(pulse->published_total, 57u);
}

TEST(Heartbeat, AnotherEventTypeIsNotAHeartbeat) {
  event e;
  e.type = event_type::branch_measured;
  auto pulse = read_heartbeat(e);
  ASSERT_FALSE(pulse);
  EXPECT_EQ(pulse.error().code, feed_errc::bad_message);
}

TEST(Heartbeat, AMissingOrMistypedMemberIsNamed) {
  auto e = to_event(sample_pulse(), 1764000000.5, "nightly");
  e.detail_json = R"({"interval_s":1,"feed_endpoint":"tcp://127.0.0.1:5757","published_total":3})";
  auto missing = read_heartbeat(e);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, feed_errc::bad_field);
  EXPECT_EQ(missing.error().place, "replay_endpoint");

  e.detail_json = R"({"interval_s":0,"feed_endpoint":"","replay_endpoint":"","published_total":3})";
  auto zero = read_heartbeat(e);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().place, "interval_s");
}

} // namespace
} // namespace warpforge::feed
