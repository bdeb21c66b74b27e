// The llm actor: each request in a detached worker of its own, so a slow reply does not hold up
// the next; answers (and failures) reach the asker through actor_chat_client, the chat_client the
// llm proposer uses from its own threads; the status counts calls, tokens and dollars.

#include "actors/llm.hpp"
#include "actors/proposer.hpp"
#include "actors/registry.hpp"
#include "actors/runtime.hpp"

#include <caf/scoped_actor.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <chrono>
#include <future>
#include <thread>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;

// A model whose "slow" request blocks until released, and whose "fail" request fails.
class gated_model final : public llm::chat_client {
public:
  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override {
    ++in_flight;
    peak = std::max(peak.load(), in_flight.load());
    if (request.purpose == "slow")
      release.get_future().wait_for(10s);
    --in_flight;
    if (request.purpose == "fail")
      return unexpected{llm::chat_error{llm::chat_error_kind::rate_limited, "429 after 6 tries", 429, 6}};
    llm::chat_reply r;
    r.text = "echo: " + request.messages.at(0).text;
    r.usage = {100, 50, 0, 0};
    r.cost_usd = 0.25;
    return r;
  }
  std::promise<void> release;
  std::atomic<int> in_flight{0};
  std::atomic<int> peak{0};
};

llm::chat_request request(std::string purpose, std::string text) {
  llm::chat_request r;
  r.model = "m";
  r.purpose = std::move(purpose);
  r.messages.push_back({llm::role::user, std::move(text)});
  return r;
}

TEST(LlmActor, ASlowRequestDoesNotHoldUpTheNextAndEveryAnswerReachesItsAsker) {
  system_config cfg;
  caf::actor_system system{cfg};
  auto model = std::make_shared<gated_model>();
  auto actor = system.spawn(llm, std::shared_ptr<llm::chat_client>{model});
  system.registry().put(registry_key(llm_name), caf::actor_cast<caf::strong_actor_ptr>(actor));

  actor_chat_client client{system};
  auto slow = std::async(std::launch::async, [&] { return client.chat(request("slow", "first")); });
  while (model->in_flight.load() == 0)
    std::this_thread::sleep_for(1ms);
  auto fast = client.chat(request("fast", "second")); // answered while the slow one still waits
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(fast->text, "echo: second");
  EXPECT_EQ(model->peak.load(), 2) << "both requests were in flight at once";

  auto failed = client.chat(request("fail", "third"));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, llm::chat_error_kind::rate_limited);
  EXPECT_EQ(failed.error().http_status, 429u);
  EXPECT_EQ(failed.error().attempts, 6u);

  model->release.set_value();
  auto first = slow.get();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->text, "echo: first");

  caf::scoped_actor self{system};
  messages::component_status status;
  // The workers' word arrives after their answers: ask until it has (the bound only ends a lost
  // word; a loaded machine may need more than a few tries).
  for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
    self->request(actor, 5s, messages::status_atom::value).receive([&](messages::component_status& s) { status = s; },
                                                                     [](caf::error&) {});
    if (status.counters.size() == 5 && status.counters[2].value == 0)
      break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(status.counters.size(), 5u);
  EXPECT_EQ(status.counters[0].value, 3) << "calls";
  EXPECT_EQ(status.counters[1].value, 1) << "failures";
  EXPECT_EQ(status.counters[2].value, 0) << "in flight";
  EXPECT_EQ(status.counters[3].value, 300) << "tokens of the two replies";
  EXPECT_EQ(status.counters[4].value, 500000) << "micro-dollars of the two replies";
  self->send_exit(actor, caf::exit_reason::user_shutdown);
  system.registry().erase(registry_key(llm_name));
}

TEST(LlmActor, WithoutAnLlmActorTheClientSaysSoAfterItsPatience) {
  system_config cfg;
  caf::actor_system system{cfg};
  actor_chat_client client{system, 200ms};
  const auto started = std::chrono::steady_clock::now();
  auto answer = client.chat(request("propose", "x"));
  ASSERT_FALSE(answer);
  EXPECT_NE(answer.error().message.find("not running"), std::string::npos);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 200ms) << "it looked again while a restart could finish";
}

// A proposer that cannot propose answers a proposal carrying the failure, not an error: the
// scheduler's asks take an error for a dead actor and would send the request again forever.
TEST(ProposerActor, AFailureToProposeIsAnAnswerNotAnError) {
  system_config cfg;
  caf::actor_system system{cfg};
  proposer_config config;
  config.spec.kind = config::proposer_kind::llm;
  config.llm = config::llm_spec{};
  auto actor = system.spawn(proposer, config);
  pipeline::propose_request request;
  request.job = "missing";
  request.problem_path = "/nonexistent/problem.toml";
  request.iteration = 1;
  request.run_dir = (std::filesystem::temp_directory_path() / "wf-proposer-actor-test").string();
  caf::scoped_actor self{system};
  bool answered = false;
  self->request(actor, 30s, request)
    .receive(
      [&](pipeline::proposal& p) {
        answered = true;
        EXPECT_TRUE(p.candidates.empty());
        ASSERT_TRUE(p.failure);
        EXPECT_NE(p.failure->find("cannot load the problem /nonexistent/problem.toml"), std::string::npos) << *p.failure;
      },
      [&](caf::error& e) { ADD_FAILURE() << "answered an error: " << system.render(e); });
  EXPECT_TRUE(answered);
  self->send_exit(actor, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace warpforge::actors
