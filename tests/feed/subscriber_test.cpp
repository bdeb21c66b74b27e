#include "feed/subscriber.hpp"

#include "feed/event_json.hpp"
#include "feed/publisher.hpp"
#include "feed_test_support.hpp"

#include <gtest/gtest.h>
#include <zmq.hpp>

#include <string>
#include <vector>

namespace warpforge::feed {
namespace {

using testing::ephemeral_loopback;
using testing::io_timeout;
using testing::numbered_event;
using testing::quiet_period;

/// A bare ZeroMQ XPUB socket that can send anything, and sees the subscription arrive.
struct raw_publisher {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::xpub};
  std::string endpoint;

  raw_publisher() {
    socket.set(zmq::sockopt::linger, 0);
    socket.bind(ephemeral_loopback);
    endpoint = socket.get(zmq::sockopt::last_endpoint);
  }

  /// True once a subscription message arrived.
  bool wait_for_subscription() {
    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, io_timeout) == 0)
      return false;
    zmq::message_t subscription;
    return socket.recv(subscription, zmq::recv_flags::none).has_value();
  }

  void send(const std::vector<std::string>& frames) {
    for (std::size_t index = 0; index < frames.size(); ++index) {
      auto flags = index + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
      socket.send(zmq::buffer(frames[index]), flags);
    }
  }
};

void expect_error(subscriber& sub, feed_errc code, std::string_view place) {
  auto received = sub.receive(io_timeout);
  ASSERT_FALSE(received) << "expected " << to_string(code) << ", got an event or a timeout";
  EXPECT_EQ(received.error().code, code) << to_string(received.error());
  EXPECT_EQ(received.error().place, place) << to_string(received.error());
}

TEST(Subscriber, MalformedMessagesAreErrorsAndTheSubscriberStaysUsable) {
  raw_publisher raw;
  auto sub = subscriber::connect(raw.endpoint);
  ASSERT_TRUE(sub) << to_string(sub.error());
  ASSERT_TRUE(raw.wait_for_subscription());

  auto good = numbered_event(1, event_type::job_started);
  auto other_schema = encode(good);
  other_schema.replace(other_schema.find("\"schema\":1"), std::string_view{"\"schema\":1"}.size(),
                       "\"schema\":99");

  raw.send({"job_started"});
  expect_error(*sub, feed_errc::bad_message, "frames");
  raw.send({"job_started", encode(good), "extra"});
  expect_error(*sub, feed_errc::bad_message, "frames");
  raw.send({"job_started", "{not json"});
  expect_error(*sub, feed_errc::bad_json, "");
  raw.send({"job_started", other_schema});
  expect_error(*sub, feed_errc::unsupported_schema, "schema");
  raw.send({"branch_failed", encode(good)});
  expect_error(*sub, feed_errc::bad_message, "topic");

  raw.send({"job_started", encode(good)});
  auto received = sub->receive(io_timeout);
  ASSERT_TRUE(received) << to_string(received.error());
  ASSERT_TRUE(*received);
  EXPECT_EQ(**received, good);
}

TEST(Subscriber, ReceiveReturnsNothingWhenNothingArrivesInTime) {
  raw_publisher raw;
  auto sub = subscriber::connect(raw.endpoint);
  ASSERT_TRUE(sub);
  auto received = sub->receive(quiet_period);
  ASSERT_TRUE(received);
  EXPECT_FALSE(*received);
}

TEST(Subscriber, ReceiveRawReturnsTheJsonTextAsPublished) {
  auto pub = publisher::bind(publisher_options{.endpoint = ephemeral_loopback});
  ASSERT_TRUE(pub) << to_string(pub.error());
  auto sub = subscriber::connect(pub->endpoint(), {"error"});
  ASSERT_TRUE(sub) << to_string(sub.error());
  ASSERT_TRUE(pub->wait_for_subscriptions(1, io_timeout));

  auto e = numbered_event(3, event_type::error, detail{}.add("message", "NVRTC crashed").json());
  ASSERT_TRUE(pub->publish(e));
  auto text = sub->receive_raw(io_timeout);
  ASSERT_TRUE(text) << to_string(text.error());
  ASSERT_TRUE(*text);
  EXPECT_EQ(**text, encode(e));
}

TEST(Subscriber, ConnectRejectsAMalformedEndpointOrOption) {
  auto no_transport = subscriber::connect("127.0.0.1:5570");
  ASSERT_FALSE(no_transport);
  EXPECT_EQ(no_transport.error().code, feed_errc::bad_endpoint);
  auto bad_port = subscriber::connect("tcp://127.0.0.1:99999");
  ASSERT_FALSE(bad_port);
  EXPECT_EQ(bad_port.error().place, "port");
  auto bad_hwm = subscriber::connect(subscriber_options{"tcp://127.0.0.1:5570", {}, 0});
  ASSERT_FALSE(bad_hwm);
  EXPECT_EQ(bad_hwm.error().code, feed_errc::bad_option);
}

} // namespace
} // namespace warpforge::feed
