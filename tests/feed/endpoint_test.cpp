#include "feed/endpoint.hpp"

#include <gtest/gtest.h>

namespace warpforge::feed {
namespace {

TEST(EndpointTransport, EveryValueRoundTripsThroughItsName) {
  for (auto transport : all_endpoint_transports)
    EXPECT_EQ(endpoint_transport_from_string(to_string(transport)), transport);
  EXPECT_EQ(endpoint_transport_from_string("pgm"), std::nullopt);
}

TEST(Endpoint, LoopbackTcpHostsAreLocal) {
  for (auto text : {"tcp://127.0.0.1:5570", "tcp://127.12.0.9:*", "tcp://localhost:0",
                    "tcp://LocalHost:5570", "tcp://[::1]:5570"}) {
    auto address = check_bind_endpoint(text, false);
    ASSERT_TRUE(address) << text << ": " << to_string(address.error());
    EXPECT_TRUE(address->local) << text;
  }
}

TEST(Endpoint, SplitsHostAndPortAndNotesIpv6) {
  auto address = parse_endpoint("tcp://[::1]:5570");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->transport, endpoint_transport::tcp);
  EXPECT_EQ(address->host, "::1");
  EXPECT_EQ(address->port, "5570");
  EXPECT_TRUE(address->ipv6);
  auto ephemeral = parse_endpoint("tcp://127.0.0.1:*");
  ASSERT_TRUE(ephemeral);
  EXPECT_EQ(ephemeral->port, "*");
  EXPECT_FALSE(ephemeral->ipv6);
}

TEST(Endpoint, IpcAndInprocAreLocal) {
  auto ipc = check_bind_endpoint("ipc:///tmp/warpforge-feed", false);
  ASSERT_TRUE(ipc);
  EXPECT_EQ(ipc->transport, endpoint_transport::ipc);
  EXPECT_EQ(ipc->path, "/tmp/warpforge-feed");
  EXPECT_TRUE(ipc->local);
  auto inproc = check_bind_endpoint("inproc://feed", false);
  ASSERT_TRUE(inproc);
  EXPECT_TRUE(inproc->local);
}

TEST(Endpoint, AddressesOtherHostsCanReachAreRefusedWithoutAllowRemote) {
  for (auto text : {"tcp://0.0.0.0:*", "tcp://192.0.2.1:5000", "tcp://*:5570", "tcp://eth0:5570",
                    "tcp://feed.example.com:5570", "tcp://[::]:5570", "tcp://128.0.0.1:5570",
                    "tcp://[::ffff:192.0.2.1]:5570"}) {
    auto address = check_bind_endpoint(text, false);
    ASSERT_FALSE(address) << text;
    EXPECT_EQ(address.error().code, feed_errc::remote_not_allowed) << text;
    EXPECT_EQ(address.error().place, "host") << text;
  }
}

TEST(Endpoint, AllowRemoteAcceptsThemAsNotLocal) {
  for (auto text : {"tcp://0.0.0.0:*", "tcp://192.0.2.1:5000", "tcp://*:5570"}) {
    auto address = check_bind_endpoint(text, true);
    ASSERT_TRUE(address) << text << ": " << to_string(address.error());
    EXPECT_FALSE(address->local) << text;
  }
  auto address = check_bind_endpoint("tcp://192.0.2.1:5000", true);
  ASSERT_TRUE(address);
  EXPECT_EQ(address->host, "192.0.2.1");
  EXPECT_EQ(address->port, "5000");
}

TEST(Endpoint, MalformedEndpointsNameThePartAtFault) {
  struct bad_case {
    const char* text;
    const char* place;
  };
  for (auto [text, place] : {bad_case{"127.0.0.1:5570", "transport"},
                             bad_case{"udp://127.0.0.1:5570", "transport"},
                             bad_case{"tcp://127.0.0.1", "port"},
                             bad_case{"tcp://127.0.0.1:70000", "port"},
                             bad_case{"tcp://127.0.0.1:port", "port"},
                             bad_case{"tcp://:5570", "host"},
                             bad_case{"ipc://", "path"}}) {
    auto address = parse_endpoint(text);
    ASSERT_FALSE(address) << text;
    EXPECT_EQ(address.error().code, feed_errc::bad_endpoint) << text;
    EXPECT_EQ(address.error().place, place) << text;
  }
}

TEST(ReplayEndpoint, TakesTheFeedsPortPlusOneOnTheSameHost) {
  EXPECT_EQ(replay_endpoint_for("tcp://127.0.0.1:5757").value(), "tcp://127.0.0.1:5758");
  EXPECT_EQ(replay_endpoint_for("tcp://[::1]:5757").value(), "tcp://[::1]:5758");
  EXPECT_EQ(replay_endpoint_for("tcp://0.0.0.0:6000").value(), "tcp://0.0.0.0:6001");
}

TEST(ReplayEndpoint, AFreePortFeedGetsAFreePortReplay) {
  EXPECT_EQ(replay_endpoint_for("tcp://127.0.0.1:*").value(), "tcp://127.0.0.1:*");
  EXPECT_EQ(replay_endpoint_for("tcp://localhost:0").value(), "tcp://localhost:*");
}

TEST(ReplayEndpoint, SocketPathsGetASuffix) {
  EXPECT_EQ(replay_endpoint_for("ipc:///tmp/feed").value(), "ipc:///tmp/feed.replay");
  EXPECT_EQ(replay_endpoint_for("inproc://feed").value(), "inproc://feed.replay");
}

TEST(ReplayEndpoint, TheLastPortHasNoSuccessorAndSaysSo) {
  auto endpoint = replay_endpoint_for("tcp://127.0.0.1:65535");
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().code, feed_errc::bad_endpoint);
  EXPECT_EQ(endpoint.error().place, "port");
  EXPECT_FALSE(replay_endpoint_for("udp://127.0.0.1:1"));
}

TEST(ReplayEndpoint, FollowsTheFeedsLoopbackRule) {
  auto remote = check_bind_endpoint(replay_endpoint_for("tcp://0.0.0.0:6000").value(), false);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().code, feed_errc::remote_not_allowed);
  EXPECT_TRUE(check_bind_endpoint(replay_endpoint_for("tcp://127.0.0.1:6000").value(), false));
}

TEST(ReachableEndpoint, AWildcardHostBecomesTheHostTheMonitorReached) {
  EXPECT_EQ(reachable_endpoint("tcp://0.0.0.0:6001", "tcp://gpu-node-3:6000"),
            "tcp://gpu-node-3:6001");
  EXPECT_EQ(reachable_endpoint("tcp://*:6001", "tcp://192.0.2.7:6000"), "tcp://192.0.2.7:6001");
  EXPECT_EQ(reachable_endpoint("tcp://[::]:6001", "tcp://[2001:db8::1]:6000"),
            "tcp://[2001:db8::1]:6001");
}

TEST(ReachableEndpoint, AnythingElseIsKeptAsAdvertised) {
  EXPECT_EQ(reachable_endpoint("tcp://127.0.0.1:41238", "tcp://127.0.0.1:41237"),
            "tcp://127.0.0.1:41238");
  EXPECT_EQ(reachable_endpoint("ipc:///tmp/feed.replay", "ipc:///tmp/feed"),
            "ipc:///tmp/feed.replay");
}

TEST(BindText, SpellsLocalhostAsItsAddressAndBracketsIpv6) {
  EXPECT_EQ(bind_text(parse_endpoint("tcp://localhost:*").value()), "tcp://127.0.0.1:*");
  EXPECT_EQ(bind_text(parse_endpoint("tcp://[::1]:5757").value()), "tcp://[::1]:5757");
  EXPECT_EQ(bind_text(parse_endpoint("ipc:///tmp/feed").value()), "ipc:///tmp/feed");
}

} // namespace
} // namespace warpforge::feed
