// A host's gateway (actors/hosts/host_gateway.hpp) answers an order it cannot take the same way
// for a race and for a profile: out of service with its reason, so the coordinator gives the
// work to another GPU. Here: an order for a GPU the host does not offer (no worker, no compile).

#include "actors/hosts/host_gateway.hpp"
#include "actors/runtime.hpp"

#include <caf/scoped_actor.hpp>

#include <gtest/gtest.h>

#include <optional>

namespace warpforge::actors::hosts {
namespace {

using namespace std::chrono_literals;

class HostGateway : public ::testing::Test {
protected:
  system_config config;
  caf::actor_system system{config};

  messages::host_actor gateway() {
    host_gateway_config cfg;
    cfg.offer.host = "node7:4242";
    gpu::device_info only;
    only.ordinal = 0;
    cfg.offer.devices.push_back(only);
    cfg.compile = [](const gpu::compile_request&) { return gpu::compile_result{}; };
    return system.spawn(host_gateway, cfg);
  }
};

TEST_F(HostGateway, AProfileForAGpuItDoesNotOfferIsOutOfServiceAsARaceIs) {
  auto host = gateway();
  caf::scoped_actor self{system};
  messages::remote_race race;
  race.gpu = 7;
  std::optional<messages::race_reply> reply;
  self->request(host, 10s, race).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->service, messages::worker_service::out_of_service);
  EXPECT_NE(reply->why_out_of_service.find("node7:4242 offers no GPU 7"), std::string::npos) << reply->why_out_of_service;

  messages::remote_profile_batch batch; // every profile of it, said as the race's is
  batch.gpu = 7;
  batch.order.orders.resize(2);
  std::optional<messages::metrics_batch_reply> sets;
  self->request(host, 10s, batch).receive([&](messages::metrics_batch_reply& r) { sets = r; }, [](caf::error&) {});
  ASSERT_TRUE(sets);
  ASSERT_EQ(sets->sets.size(), 2u);
  for (const auto& one : sets->sets) {
    EXPECT_EQ(one.service, gpu::worker_service::out_of_service);
    EXPECT_EQ(one.why_out_of_service, reply->why_out_of_service);
  }
  self->send_exit(host, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace warpforge::actors::hosts
