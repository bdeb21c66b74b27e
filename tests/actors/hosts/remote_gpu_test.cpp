// A remote host's GPU as the coordinator sees it (actors/hosts/remote_gpu.hpp): races go to the
// host's gateway with their kernels' sources, and a host that is lost — its actor gone, or silent
// past the heartbeat's timeout — has every race in flight answered out of service (the engine
// then races it elsewhere), and every later one at once. The host is a stand-in actor here; the
// network between them is tls_test's and the loopback campaign's.

#include "actors/hosts/network.hpp"
#include "actors/hosts/remote_gpu.hpp"
#include "actors/runtime.hpp"

#include <caf/after.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace warpforge::actors::hosts {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// How the stand-in host behaves.
struct host_script {
  bool answers_races = false;     // else it keeps every race unanswered (a long one in flight)
  bool answers_heartbeats = true; // else it is silent: a hung host
  bool answers_profiles = true;   // else it keeps every profile unanswered
  std::shared_ptr<std::atomic<int>> profiles_seen = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::vector<messages::remote_race>> seen = std::make_shared<std::vector<messages::remote_race>>();
  std::shared_ptr<std::vector<messages::remote_profile_batch>> batches =
    std::make_shared<std::vector<messages::remote_profile_batch>>();
};

messages::host_actor::behavior_type stand_in_host(messages::host_actor::pointer self, host_script script) {
  return {
    [](messages::hello_atom) { return messages::host_offer{}; },
    [self, script](messages::heartbeat_atom) -> caf::typed_response_promise<messages::heartbeat_atom> {
      auto promise = self->make_response_promise<messages::heartbeat_atom>();
      if (script.answers_heartbeats)
        promise.deliver(messages::heartbeat_atom::value);
      return promise; // unanswered: the asker's timeout says so
    },
    [self, script](messages::remote_race& r) -> caf::typed_response_promise<messages::race_reply> {
      script.seen->push_back(r);
      auto promise = self->make_response_promise<messages::race_reply>();
      if (script.answers_races) {
        messages::race_reply reply;
        reply.device.ordinal = r.gpu;
        reply.result.kernels.resize(r.order.request.kernels.size());
        promise.deliver(reply);
      }
      return promise;
    },
    // Each profile of a batch is answered with its order's position as its one value.
    [self, script](messages::remote_profile_batch& b) -> caf::typed_response_promise<messages::metrics_batch_reply> {
      script.batches->push_back(b);
      ++*script.profiles_seen; // the test thread waits on this one (atomic), not on the vector
      auto promise = self->make_response_promise<messages::metrics_batch_reply>();
      if (script.answers_profiles) {
        messages::metrics_batch_reply reply;
        for (std::size_t i = 0; i < b.order.orders.size(); ++i)
          reply.sets.push_back(gpu::metric_set{gpu::metric_source::cupti, {{"position", static_cast<double>(i)}}, "", {}, ""});
        promise.deliver(reply);
      }
      return promise;
    },
    [self](messages::stop_atom) { self->quit(); },
    [](messages::status_atom) { return messages::component_status{}; },
  };
}

class RemoteGpu : public ::testing::Test {
protected:
  fs::path dir = fs::temp_directory_path() / ("wf-remote-gpu-" + std::to_string(::getpid()));
  system_config config;
  caf::actor_system system{config};
  std::shared_ptr<pipeline::kernel_ledger> ledger = std::make_shared<pipeline::kernel_ledger>();
  messages::race_order order;

  void SetUp() override {
    fs::create_directories(dir);
    gpu::compile_request request;
    request.source = "extern \"C\" __global__ void k() {}";
    request.entry = "k";
    const std::vector<std::uint8_t> cubin = {'c', 'u', 'b', 'i', 'n'};
    ledger->remember(request, cubin);
    std::ofstream{dir / "k.cubin"} << "cubin";
    order.request.kernels = {{dir / "k.cubin", "k", {}}};
  }
  void TearDown() override { fs::remove_all(dir); }

  remote_gpu_actor remote(const messages::host_actor& host) {
    remote_gpu_config c;
    c.host = host;
    c.host_name = "node7:4242";
    c.device.ordinal = 5;
    c.device.name = "Stand-in GPU";
    c.host_ordinal = 1;
    c.ledger = ledger;
    return system.spawn(remote_gpu, c);
  }
};

TEST_F(RemoteGpu, SendsTheRaceWithItsKernelsSourcesAndAnswersUnderItsOwnOrdinal) {
  host_script script;
  script.answers_races = true;
  auto host = system.spawn(stand_in_host, script);
  auto gpu = remote(host);
  caf::scoped_actor self{system};
  std::optional<messages::race_reply> reply;
  self->request(gpu, 10s, order).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->service, messages::worker_service::in_service);
  EXPECT_EQ(reply->device.ordinal, 5); // the coordinator's ordinal, not the host's 1
  ASSERT_EQ(script.seen->size(), 1u);
  EXPECT_EQ(script.seen->front().gpu, 1);
  ASSERT_EQ(script.seen->front().builds.size(), 1u);
  EXPECT_EQ(script.seen->front().builds[0].request.entry, "k");
  self->send_exit(host, caf::exit_reason::user_shutdown);
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
}

TEST_F(RemoteGpu, AHostThatDiesGivesItsRaceInFlightBackAtOnceAndEveryLaterOne) {
  auto host = system.spawn(stand_in_host, host_script{});
  auto gpu = remote(host);
  caf::scoped_actor self{system};
  std::optional<messages::race_reply> reply;
  auto in_flight = self->request(gpu, 10s, order);
  self->receive(caf::after(200ms) >> [] {}); // the race reaches the host, which keeps it
  const auto killed = std::chrono::steady_clock::now();
  self->send_exit(host, caf::exit_reason::kill);
  std::move(in_flight).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  EXPECT_LT(std::chrono::steady_clock::now() - killed, 2s);
  EXPECT_EQ(reply->service, messages::worker_service::out_of_service);
  EXPECT_NE(reply->why_out_of_service.find("node7:4242 is lost"), std::string::npos) << reply->why_out_of_service;
  EXPECT_EQ(reply->result.kernels.size(), 1u);

  std::optional<messages::race_reply> later;
  self->request(gpu, 10s, order).receive([&](messages::race_reply& r) { later = r; }, [](caf::error&) {});
  ASSERT_TRUE(later);
  EXPECT_EQ(later->service, messages::worker_service::out_of_service);
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
}

// A profile lost with its host is answered out of service too, so the engine profiles the branch
// on another GPU (pipeline/engine_dispatch.cpp) instead of leaving its diagnosis out.
TEST_F(RemoteGpu, AHostThatDiesGivesItsProfileInFlightBackOutOfService) {
  host_script script;
  script.answers_profiles = false;
  auto host = system.spawn(stand_in_host, script);
  auto gpu = remote(host);
  caf::scoped_actor self{system};
  messages::metrics_order profile;
  profile.launch = order.request;
  auto in_flight = self->request(gpu, 10s, profile);
  for (int waited = 0; *script.profiles_seen == 0 && waited < 500; ++waited) // until the host holds it
    self->receive(caf::after(10ms) >> [] {});
  ASSERT_EQ(*script.profiles_seen, 1) << "the profile never reached the host";
  self->send_exit(host, caf::exit_reason::kill);
  std::optional<gpu::metric_set> set;
  std::move(in_flight).receive([&](gpu::metric_set& s) { set = s; }, [](caf::error&) {});
  ASSERT_TRUE(set);
  EXPECT_TRUE(set->values.empty());
  EXPECT_EQ(set->service, gpu::worker_service::out_of_service);
  EXPECT_NE(set->why_out_of_service.find("node7:4242 is lost"), std::string::npos) << set->why_out_of_service;
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
}

// A batch of profiles goes to the host whole, with its kernels' builds, and is answered in order;
// lost with the host, every profile of it comes back out of service.
TEST_F(RemoteGpu, ABatchOfProfilesGoesToTheHostWholeAndComesBackInOrderOrOutOfService) {
  host_script script;
  auto host = system.spawn(stand_in_host, script);
  auto gpu = remote(host);
  caf::scoped_actor self{system};
  messages::metrics_batch_order batch;
  for (int i = 0; i < 3; ++i) {
    messages::metrics_order profile;
    profile.launch = order.request;
    batch.orders.push_back(profile);
  }
  std::optional<messages::metrics_batch_reply> reply;
  self->request(gpu, 10s, batch).receive([&](messages::metrics_batch_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  ASSERT_EQ(script.batches->size(), 1u) << "one message for the batch";
  EXPECT_EQ(script.batches->front().order.orders.size(), 3u);
  EXPECT_EQ(script.batches->front().gpu, 1) << "the host's own ordinal";
  EXPECT_FALSE(script.batches->front().builds.empty()) << "the kernels' builds travel with it";
  ASSERT_EQ(reply->sets.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(reply->sets[i].values.at(0).value, static_cast<double>(i));

  host_script silent;
  silent.answers_profiles = false;
  auto dying = system.spawn(stand_in_host, silent);
  auto second = remote(dying);
  auto in_flight = self->request(second, 10s, batch);
  for (int waited = 0; *silent.profiles_seen == 0 && waited < 500; ++waited)
    self->receive(caf::after(10ms) >> [] {});
  ASSERT_EQ(*silent.profiles_seen, 1) << "the batch never reached the host";
  self->send_exit(dying, caf::exit_reason::kill);
  reply.reset();
  std::move(in_flight).receive([&](messages::metrics_batch_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->sets.size(), 3u);
  for (const auto& set : reply->sets)
    EXPECT_EQ(set.service, gpu::worker_service::out_of_service) << set.note;
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
  self->send_exit(second, caf::exit_reason::user_shutdown);
}

TEST_F(RemoteGpu, AHostThatComesBackTakesRacesAgainUnderTheSameName) {
  auto host = system.spawn(stand_in_host, host_script{});
  auto gpu = remote(host);
  caf::scoped_actor self{system};
  self->send_exit(host, caf::exit_reason::kill);
  std::optional<messages::race_reply> reply;
  for (int i = 0; i < 50 && (!reply || reply->service == messages::worker_service::in_service); ++i) {
    self->request(gpu, 10s, order).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
    self->receive(caf::after(20ms) >> [] {});
  }
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->service, messages::worker_service::out_of_service);

  host_script back;
  back.answers_races = true;
  auto returned = system.spawn(stand_in_host, back);
  self->send(gpu, messages::host_join_atom::value, caf::actor_cast<caf::actor>(returned));
  reply.reset();
  self->request(gpu, 10s, order).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->service, messages::worker_service::in_service);
  EXPECT_EQ(back.seen->size(), 1u);
  self->send_exit(returned, caf::exit_reason::user_shutdown);
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
}

TEST_F(RemoteGpu, AHostSilentPastTheHeartbeatTimeoutIsLostWithinTheStatedDeadline) {
  host_script script;
  script.answers_heartbeats = false;
  auto host = system.spawn(stand_in_host, script);
  const auto started = std::chrono::steady_clock::now();
  auto gpu = remote(host);
  caf::scoped_actor self{system};
  std::optional<messages::race_reply> reply;
  self->request(gpu, 30s, order).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->service, messages::worker_service::out_of_service);
  EXPECT_NE(reply->why_out_of_service.find("did not answer its heartbeat"), std::string::npos)
    << reply->why_out_of_service;
  EXPECT_GE(took, heartbeat_timeout - 100ms);
  EXPECT_LE(took, heartbeat_interval + heartbeat_timeout + 1s);
  self->send_exit(host, caf::exit_reason::user_shutdown);
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
}

TEST_F(RemoteGpu, ARaceWhoseCubinTheCoordinatorDidNotCompileIsNotSent) {
  host_script script;
  script.answers_races = true;
  auto host = system.spawn(stand_in_host, script);
  auto gpu = remote(host);
  std::ofstream{dir / "other.cubin"} << "not made here";
  order.request.kernels = {{dir / "other.cubin", "k", {}}};
  caf::scoped_actor self{system};
  std::optional<messages::race_reply> reply;
  self->request(gpu, 10s, order).receive([&](messages::race_reply& r) { reply = r; }, [](caf::error&) {});
  ASSERT_TRUE(reply);
  EXPECT_NE(reply->why_out_of_service.find("did not compile it"), std::string::npos) << reply->why_out_of_service;
  EXPECT_TRUE(script.seen->empty());
  self->send_exit(host, caf::exit_reason::user_shutdown);
  self->send_exit(gpu, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace warpforge::actors::hosts
