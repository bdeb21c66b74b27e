#include "feed/publisher.hpp"

#include "feed/event_json.hpp"
#include "feed/subscriber.hpp"
#include "feed_test_support.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

namespace warpforge::feed {
namespace {

using testing::ephemeral_loopback;
using testing::io_timeout;
using testing::numbered_event;
using testing::quiet_period;

publisher bind_loopback(int high_water_mark = default_high_water_mark) {
  auto bound = publisher::bind(
    publisher_options{.endpoint = ephemeral_loopback, .high_water_mark = high_water_mark});
  if (!bound)
    throw std::runtime_error("bind failed: " + to_string(bound.error()));
  return std::move(*bound);
}

subscriber connect_to(const publisher& pub, std::vector<std::string> topics = {},
                      int high_water_mark = default_subscriber_high_water_mark) {
  auto connected = subscriber::connect(subscriber_options{pub.endpoint(), std::move(topics),
                                                          high_water_mark});
  if (!connected)
    throw std::runtime_error("connect failed: " + to_string(connected.error()));
  return std::move(*connected);
}

/// The next event, failing the test on an error or when none arrives in time.
event next_event(subscriber& sub) {
  auto received = sub.receive(io_timeout);
  if (!received)
    throw std::runtime_error("receive failed: " + to_string(received.error()));
  if (!*received)
    throw std::runtime_error("no event within the timeout");
  return std::move(**received);
}

TEST(Publisher, BindsAnEphemeralLoopbackPortAndReportsIt) {
  for (auto text : {"tcp://127.0.0.1:*", "tcp://127.0.0.1:0", "tcp://localhost:*"}) {
    auto pub = publisher::bind(publisher_options{.endpoint = text});
    ASSERT_TRUE(pub) << text << ": " << to_string(pub.error());
    const auto& endpoint = pub->endpoint();
    EXPECT_EQ(endpoint.rfind("tcp://127.0.0.1:", 0), 0u) << endpoint;
    auto port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
    EXPECT_GT(port, 0) << endpoint;
  }
}

TEST(Publisher, RefusesAnAddressOtherHostsCanReachWithoutAllowRemote) {
  for (auto text : {"tcp://0.0.0.0:*", "tcp://192.0.2.1:5000"}) {
    auto pub = publisher::bind(publisher_options{.endpoint = text});
    ASSERT_FALSE(pub) << text;
    EXPECT_EQ(pub.error().code, feed_errc::remote_not_allowed) << text;
  }
}

TEST(Publisher, RefusesAHighWaterMarkThatIsNotPositive) {
  auto pub = publisher::bind(publisher_options{.endpoint = ephemeral_loopback, .high_water_mark = 0});
  ASSERT_FALSE(pub);
  EXPECT_EQ(pub.error().code, feed_errc::bad_option);
  EXPECT_EQ(pub.error().place, "high_water_mark");
}

TEST(Publisher, BindingAPortInUseSaysTheAddressIsInUse) {
  auto first = bind_loopback();
  auto second = publisher::bind(publisher_options{.endpoint = first.endpoint()});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, feed_errc::address_in_use);
  EXPECT_EQ(second.error().place, "bind");
}

TEST(Publisher, PublishingWithNoSubscriberSucceedsAndDropsNothing) {
  auto pub = bind_loopback();
  EXPECT_TRUE(pub.publish(numbered_event(1)));
  EXPECT_EQ(pub.published(), 1u);
  EXPECT_EQ(pub.dropped(), 0u);
  EXPECT_EQ(pub.subscription_count(), 0u);
}

TEST(Publisher, WaitingForASubscriptionThatNeverComesTimesOut) {
  auto pub = bind_loopback();
  EXPECT_FALSE(pub.wait_for_subscriptions(1, quiet_period));
}

TEST(Publisher, ASubscriberReceivesEveryEventInPublishOrder) {
  constexpr std::uint64_t event_count = 1000;
  auto pub = bind_loopback();
  auto sub = connect_to(pub);
  ASSERT_TRUE(pub.wait_for_subscriptions(1, io_timeout));
  for (std::uint64_t seq = 1; seq <= event_count; ++seq)
    ASSERT_TRUE(pub.publish(numbered_event(seq, event_type::branch_measured,
                                           detail{}.add("time_s", 1e-3 * static_cast<double>(seq)).json())));
  for (std::uint64_t seq = 1; seq <= event_count; ++seq) {
    auto e = next_event(sub);
    ASSERT_EQ(e.seq, seq) << "events arrived out of order or with a gap";
    EXPECT_EQ(e, numbered_event(seq, event_type::branch_measured,
                                detail{}.add("time_s", 1e-3 * static_cast<double>(seq)).json()));
  }
  EXPECT_EQ(pub.dropped(), 0u);
  EXPECT_EQ(pub.published(), event_count);
}

TEST(Publisher, ATopicPrefixSelectsAFamilyOfEvents) {
  auto pub = bind_loopback();
  auto branches = connect_to(pub, {"branch_"});
  auto jobs_and_gpus = connect_to(pub, {"job_", "gpu_"});
  ASSERT_TRUE(pub.wait_for_subscriptions(3, io_timeout)); // one per prefix
  const std::vector<event_type> sequence{
    event_type::job_started,    event_type::gpu_leased,      event_type::branch_proposed,
    event_type::branch_compiled, event_type::champion_elected, event_type::branch_measured,
    event_type::gpu_released,   event_type::warning,         event_type::branch_failed,
    event_type::job_finished};
  std::uint64_t seq = 0;
  for (auto type : sequence)
    ASSERT_TRUE(pub.publish(numbered_event(++seq, type)));

  for (auto expected : {event_type::branch_proposed, event_type::branch_compiled,
                        event_type::branch_measured, event_type::branch_failed})
    EXPECT_EQ(next_event(branches).type, expected);
  for (auto expected : {event_type::job_started, event_type::gpu_leased, event_type::gpu_released,
                        event_type::job_finished})
    EXPECT_EQ(next_event(jobs_and_gpus).type, expected);

  auto nothing = branches.receive(quiet_period);
  ASSERT_TRUE(nothing);
  EXPECT_FALSE(*nothing) << "got " << to_string((*nothing)->type);
}

TEST(Publisher, AStalledSubscriberLosesOnlyItsOwnEventsAndTheOthersGetEveryOne) {
  constexpr int small_high_water_mark = 16;   // [messages]
  constexpr std::uint64_t flood = 20'000;     // events, beyond the queues and TCP buffers
  constexpr std::size_t padding_bytes = 512;  // makes the kernel's TCP buffers fill sooner
  constexpr std::uint64_t later_events = 100;
  auto pub = bind_loopback(small_high_water_mark);
  // Subscribed to every event, and never reads until the end.
  auto stalled = connect_to(pub, {}, small_high_water_mark);
  ASSERT_TRUE(pub.wait_for_subscriptions(1, io_timeout));

  auto padded = detail{}.add("padding", std::string(padding_bytes, 'x')).json();
  std::uint64_t seq = 0;
  for (std::uint64_t i = 0; i < flood; ++i)
    EXPECT_TRUE(pub.publish(numbered_event(++seq, event_type::branch_measured, padded)))
      << "publish never blocks and never refuses: a full queue drops for its subscriber only";

  // A healthy subscriber that joins now receives every event the stalled one also wants, its
  // queue full all the while: ZeroMQ drops for the stalled one only.
  auto healthy = connect_to(pub);
  ASSERT_TRUE(pub.wait_for_subscriptions(2, io_timeout));
  // One at a time: a burst beyond the small high-water mark would drop for the healthy one too.
  for (std::uint64_t i = 0; i < later_events; ++i) {
    ASSERT_TRUE(pub.publish(numbered_event(++seq, event_type::branch_measured, padded)));
    ASSERT_EQ(next_event(healthy).seq, seq);
  }
  EXPECT_EQ(pub.dropped(), 0u);
  auto report = pub.take_dropped_report(++seq, testing::base_ts);
  EXPECT_EQ(report.type, event_type::feed_dropped);
  simdjson::dom::parser parser;
  auto fields = parser.parse(report.detail_json).get_object().value();
  EXPECT_EQ(fields["dropped"].get_uint64().value(), 0u);
  EXPECT_EQ(fields["published_total"].get_uint64().value(), pub.published());

  // The stalled subscriber did lose events (its queue was full), and finds the gap by seq.
  std::uint64_t received = 0;
  std::uint64_t previous = 0;
  bool gap = false;
  for (;;) {
    auto e = stalled.receive(quiet_period);
    ASSERT_TRUE(e);
    if (!*e)
      break;
    gap = gap || (*e)->seq != previous + 1;
    previous = (*e)->seq;
    ++received;
  }
  EXPECT_LT(received, flood + later_events);
  EXPECT_TRUE(gap) << "the stalled subscriber sees a jump in seq where it lost events";
}

} // namespace
} // namespace warpforge::feed
