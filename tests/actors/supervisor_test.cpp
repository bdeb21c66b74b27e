#include "actors/registry.hpp"
#include "actors/runtime.hpp"
#include "actors/supervisor.hpp"
#include "messages/type_ids.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;
using crash_atom = caf::atom_constant<caf::atom("crash")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;

config::supervision_policy fast_policy(std::uint32_t max_restarts) {
  config::supervision_policy p;
  p.max_restarts = max_restarts;
  p.window_s = 60;
  p.backoff_initial_ms = 1;
  p.backoff_factor = 2.0;
  p.backoff_max_ms = 10;
  return p;
}

TEST(CrashBudget, BackOffDoublesFromTheInitialDelayUpToTheCap) {
  config::supervision_policy p;
  p.max_restarts = 10;
  p.window_s = 60;
  p.backoff_initial_ms = 100;
  p.backoff_factor = 2.0;
  p.backoff_max_ms = 500;
  crash_budget budget{p};
  auto t = clock::now();
  std::vector<std::int64_t> delays;
  for (int i = 0; i < 5; ++i)
    delays.push_back(budget.on_crash("store", t + std::chrono::seconds{i}).delay.count());
  EXPECT_EQ(delays, (std::vector<std::int64_t>{100, 200, 400, 500, 500}));
}

TEST(CrashBudget, GivesUpAfterMaxRestartsWithinTheWindowOnly) {
  config::supervision_policy p;
  p.max_restarts = 2;
  p.window_s = 10;
  p.backoff_initial_ms = 100;
  p.backoff_factor = 2.0;
  p.backoff_max_ms = 1000;
  crash_budget budget{p};
  auto t0 = clock::now();
  EXPECT_FALSE(budget.on_crash("feed", t0).give_up);
  EXPECT_FALSE(budget.on_crash("feed", t0 + 1s).give_up);
  // A different child has its own budget.
  EXPECT_FALSE(budget.on_crash("store", t0 + 1s).give_up);
  // Third crash of "feed" within 10 s: over the limit of 2 restarts.
  auto third = budget.on_crash("feed", t0 + 2s);
  EXPECT_TRUE(third.give_up);
  EXPECT_EQ(third.crashes_in_window, 3u);
  // Far later the old crashes have left the window; the back-off starts over.
  auto later = budget.on_crash("feed", t0 + 60s);
  EXPECT_FALSE(later.give_up);
  EXPECT_EQ(later.crashes_in_window, 1u);
  EXPECT_EQ(later.delay.count(), 100);
}

// A child that throws on crash_atom and answers ping_atom: the kind of failure the supervisor
// exists for (an exception escaping a handler kills the actor with sec::runtime_error).
caf::behavior crasher(caf::event_based_actor* self) {
  return {
    [](crash_atom) { throw std::runtime_error("deliberate crash"); },
    [](ping_atom) { return std::string{"pong"}; },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
  };
}

// A child that ignores the stop request: the supervisor must not wait for it forever.
caf::behavior deaf(caf::event_based_actor*) {
  return {[](ping_atom) { return std::string{"pong"}; }};
}

// Stands in for the feed: forwards every event to the test.
caf::behavior event_collector(caf::event_based_actor*, caf::actor test) {
  return {[test](feed::event& e) { caf::anon_send(test, std::move(e)); }};
}

class Supervision : public ::testing::Test {
protected:
  system_config cfg;
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};

  void SetUp() override {
    auto collector = system.spawn(event_collector, caf::actor_cast<caf::actor>(self));
    system.registry().put(registry_key(feed_name), collector);
  }

  void TearDown() override {
    if (auto collector = lookup<caf::actor>(system, feed_name))
      self->send_exit(collector, caf::exit_reason::user_shutdown);
    system.registry().erase(registry_key(feed_name));
  }

  // The next event of `type`, skipping others; fails the test after a generous timeout.
  feed::event next_event(feed::event_type type) {
    for (;;) {
      std::optional<feed::event> got;
      bool timed_out = false;
      self->receive([&](feed::event& e) { got = std::move(e); },
                    caf::after(std::chrono::seconds{10}) >> [&] { timed_out = true; });
      if (timed_out) {
        ADD_FAILURE() << "no " << feed::to_string(type) << " event within 10 s";
        return {};
      }
      if (got->type == type)
        return *got;
    }
  }

  caf::actor child(const char* name) { return lookup<caf::actor>(system, name); }
};

TEST_F(Supervision, RestartsAChildThatThrowsAndTheNewChildAnswers) {
  std::vector<child_spec> children{{"crasher", [](caf::actor_system& sys) { return sys.spawn(crasher); }}};
  auto sup = system.spawn(supervisor, fast_policy(3), std::move(children),
                          caf::actor_cast<caf::actor>(self), default_stop_grace);
  EXPECT_NE(next_event(feed::event_type::actor_started).detail_json.find("crasher"), std::string::npos);
  auto first = child("crasher");
  ASSERT_TRUE(first);
  caf::anon_send(first, crash_atom::value);

  auto restarted = next_event(feed::event_type::actor_restarted);
  EXPECT_NE(restarted.detail_json.find(R"("attempt":1)"), std::string::npos) << restarted.detail_json;
  EXPECT_NE(restarted.detail_json.find("runtime_error"), std::string::npos) << restarted.detail_json;

  auto second = child("crasher");
  ASSERT_TRUE(second);
  EXPECT_NE(second, first);
  std::string answer;
  self->request(second, 10s, ping_atom::value).receive([&](std::string& s) { answer = s; },
                                                       [](caf::error&) {});
  EXPECT_EQ(answer, "pong");

  messages::supervision_report report;
  self->request(caf::actor_cast<messages::supervisor_actor>(sup), 10s, messages::status_atom::value)
    .receive([&](messages::supervision_report& r) { report = std::move(r); }, [](caf::error&) {});
  ASSERT_EQ(report.children.size(), 1u);
  EXPECT_EQ(report.restarts, 1u);
  EXPECT_EQ(report.children[0].state, messages::component_state::running);

  bool stopped = false;
  self->request(caf::actor_cast<messages::supervisor_actor>(sup), 10s, messages::stop_atom::value)
    .receive([&](bool ok) { stopped = ok; }, [](caf::error&) {});
  EXPECT_TRUE(stopped);
}

TEST_F(Supervision, GivesUpAfterTooManyCrashesAndTellsTheOwnerWhy) {
  std::vector<child_spec> children{{"crasher", [](caf::actor_system& sys) { return sys.spawn(crasher); }}};
  auto sup = system.spawn(supervisor, fast_policy(2), std::move(children),
                          caf::actor_cast<caf::actor>(self), default_stop_grace);
  next_event(feed::event_type::actor_started);
  for (int attempt = 1; attempt <= 2; ++attempt) {
    caf::anon_send(child("crasher"), crash_atom::value);
    auto e = next_event(feed::event_type::actor_restarted);
    EXPECT_NE(e.detail_json.find("\"attempt\":" + std::to_string(attempt)), std::string::npos);
  }
  self->monitor(sup);
  caf::anon_send(child("crasher"), crash_atom::value);

  auto gave_up = next_event(feed::event_type::actor_gave_up);
  EXPECT_NE(gave_up.detail_json.find(R"("crashes":3)"), std::string::npos) << gave_up.detail_json;

  std::optional<messages::supervision_failed> failed;
  bool supervisor_down = false;
  while (!failed || !supervisor_down) {
    bool timed_out = false;
    self->receive([&](messages::supervision_failed& f) { failed = f; },
                  [&](caf::down_msg& d) { supervisor_down = d.source == sup.address(); },
                  [](feed::event&) {},
                  caf::after(std::chrono::seconds{10}) >> [&] { timed_out = true; });
    ASSERT_FALSE(timed_out) << "the supervisor neither reported nor stopped";
  }
  EXPECT_EQ(failed->child, "crasher");
  EXPECT_EQ(failed->crashes, 3u);
  EXPECT_NE(failed->reason.find("3 times within 60 s"), std::string::npos) << failed->reason;
}

TEST_F(Supervision, StopsInOrderAndKillsAChildThatIgnoresStopAfterTheGrace) {
  std::vector<child_spec> children{
    {"crasher", [](caf::actor_system& sys) { return sys.spawn(crasher); }},
    {"deaf", [](caf::actor_system& sys) { return sys.spawn(deaf); }}};
  auto sup = caf::actor_cast<messages::supervisor_actor>(
    system.spawn(supervisor, fast_policy(3), std::move(children), caf::actor_cast<caf::actor>(self),
                 std::chrono::milliseconds{50}));
  next_event(feed::event_type::actor_started);
  bool stopped = false;
  self->request(sup, 10s, messages::stop_atom::value)
    .receive([&](bool ok) { stopped = ok; }, [](caf::error& e) { ADD_FAILURE() << to_string(e); });
  EXPECT_TRUE(stopped);
}

} // namespace
} // namespace warpforge::actors
