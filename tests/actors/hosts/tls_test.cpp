// Hosts and coordinators meet over CAF's network layer with TLS (actors/hosts/network.hpp): a
// peer holding the campaign's member certificate reaches a host's gateway; one holding another
// campaign's certificate, or speaking without TLS, is refused in the handshake. Real sockets on
// 127.0.0.1, real certificates from the `openssl` tool.

#include "actors/hosts/host_gateway.hpp"
#include "actors/hosts/network.hpp"
#include "actors/runtime.hpp"
#include "pipeline/host_credential.hpp"

#include <caf/io/middleman.hpp>
#include <caf/io/remote_actor.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <unistd.h>

namespace warpforge::actors::hosts {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A connection attempt that hangs is a failure too, not a stuck test.
constexpr auto connect_limit = 30s;

struct credentials {
  fs::path dir = fs::temp_directory_path() / ("wf-tls-" + std::to_string(::getpid()));
  pipeline::credential_files campaign, other;
  credentials() {
    fs::remove_all(dir);
    auto a = pipeline::make_credential(dir / "campaign", "campaign");
    auto b = pipeline::make_credential(dir / "other", "other");
    EXPECT_TRUE(a && b);
    if (a && b) {
      campaign = *a;
      other = *b;
    }
  }
  ~credentials() { fs::remove_all(dir); }
};

struct node {
  system_config config;
  std::unique_ptr<caf::actor_system> system;
  explicit node(const pipeline::credential_files* credential) {
    if (credential)
      enable_network(config, *credential);
    else
      config.load<caf::io::middleman>();
    system = std::make_unique<caf::actor_system>(config);
  }
};

host_gateway_config offer_of_one_gpu() {
  host_gateway_config c;
  c.offer.host = "tls-test:1";
  gpu::device_info d;
  d.ordinal = 0;
  d.name = "Stand-in GPU";
  d.uuid = "GPU-tls-test";
  c.offer.devices = {d};
  c.compile = [](const gpu::compile_request&) -> gpu::compile_result {
    return unexpected{gpu::compile_failure{gpu::compile_failure_kind::internal, "not in this test"}};
  };
  return c;
}

class Tls : public ::testing::Test {
protected:
  credentials keys;
  node host{&keys.campaign};
  std::uint16_t port = 0;
  messages::host_actor gateway;
  void SetUp() override {
    gateway = host.system->spawn(host_gateway, offer_of_one_gpu());
    auto bound = caf::openssl::publish(gateway, 0, "127.0.0.1", true);
    ASSERT_TRUE(bound) << host.system->render(bound.error());
    port = *bound;
  }
  void TearDown() override { caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown); }
};

TEST_F(Tls, APeerWithTheCampaignsCertificateReachesTheGatewayAndHearsItsGpus) {
  node coordinator{&keys.campaign};
  auto gateway = caf::openssl::remote_actor<messages::host_actor>(*coordinator.system, "127.0.0.1", port);
  ASSERT_TRUE(gateway) << coordinator.system->render(gateway.error());
  caf::scoped_actor self{*coordinator.system};
  std::optional<messages::host_offer> offer;
  self->request(*gateway, 10s, messages::hello_atom::value)
    .receive([&](messages::host_offer& o) { offer = o; }, [&](caf::error& e) { FAIL() << coordinator.system->render(e); });
  ASSERT_TRUE(offer);
  EXPECT_EQ(offer->host, "tls-test:1");
  ASSERT_EQ(offer->devices.size(), 1u);
  EXPECT_EQ(offer->devices[0].uuid, "GPU-tls-test");
}

TEST_F(Tls, APeerWithAnotherCampaignsCertificateIsRefused) {
  node stranger{&keys.other};
  auto attempt = std::async(std::launch::async, [&] {
    return caf::openssl::remote_actor<messages::host_actor>(*stranger.system, "127.0.0.1", port) ? true : false;
  });
  ASSERT_EQ(attempt.wait_for(connect_limit), std::future_status::ready) << "the refused handshake hung";
  EXPECT_FALSE(attempt.get());
}

TEST_F(Tls, APeerWithoutTlsIsRefused) {
  node plain{nullptr};
  auto attempt = std::async(std::launch::async, [&] {
    return caf::io::remote_actor<messages::host_actor>(*plain.system, "127.0.0.1", port) ? true : false;
  });
  ASSERT_EQ(attempt.wait_for(connect_limit), std::future_status::ready) << "the refused handshake hung";
  EXPECT_FALSE(attempt.get());
}

TEST(Endpoint, IsHostColonPortOrAPortAlone) {
  auto e = parse_endpoint("node7:4242", "127.0.0.1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "node7");
  EXPECT_EQ(e->port, 4242);
  e = parse_endpoint("5000", "127.0.0.1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_FALSE(parse_endpoint("node7:http", ""));
  EXPECT_FALSE(parse_endpoint("node7:70000", ""));
  EXPECT_FALSE(parse_endpoint(":4242", ""));
}

} // namespace
} // namespace warpforge::actors::hosts
