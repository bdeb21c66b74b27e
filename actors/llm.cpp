#include "actors/llm.hpp"

#include "actors/exceptions.hpp"
#include "actors/registry.hpp"

#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>

#include <thread>
#include <variant>

namespace warpforge::actors {

namespace {

messages::chat_answer answer_of(expected<llm::chat_reply, llm::chat_error> outcome) {
  if (outcome)
    return {std::move(*outcome)};
  return {std::move(outcome).error()};
}

// What the status counts of an answer: its failure's kind, or its tokens and dollars.
messages::chat_done done_of(const messages::chat_answer& answer) {
  if (const auto* error = std::get_if<llm::chat_error>(&answer.outcome))
    return {error->kind, 0, 0};
  const auto& reply = std::get<llm::chat_reply>(answer.outcome);
  return {std::nullopt, reply.usage.total(), reply.cost_usd};
}

// One request: ask, tell the llm actor what it cost, answer, quit.
messages::llm_worker_actor::behavior_type llm_worker(messages::llm_worker_actor::pointer self,
                                                     std::shared_ptr<llm::chat_client> client,
                                                     messages::llm_actor parent) {
  return {
    [self, client, parent](const llm::chat_request& request) {
      auto answer = answer_of(client->chat(request));
      self->send(parent, done_of(answer));
      self->quit();
      return answer;
    },
  };
}

} // namespace

void llm_state::done(const messages::chat_done& d) {
  --in_flight;
  if (d.failure)
    ++failures;
  tokens += d.tokens;
  cost_usd += d.cost_usd;
}

messages::component_status llm_state::status() const {
  return {std::string{llm_name}, messages::component_state::running, "",
          {{"calls", calls}, {"failures", failures}, {"in_flight", in_flight}, {"tokens", tokens},
           {"cost_micro_usd", static_cast<std::int64_t>(cost_usd * 1e6)}}};
}

messages::llm_actor::behavior_type llm(messages::llm_actor::stateful_pointer<llm_state> self,
                                       std::shared_ptr<llm::chat_client> client) {
  keep_exception_text(self);
  self->state.client = std::move(client);
  return {
    [self](const llm::chat_request& request) -> caf::result<messages::chat_answer> {
      ++self->state.calls;
      ++self->state.in_flight;
      auto worker = self->spawn<caf::detached>(llm_worker, self->state.client, messages::llm_actor{self});
      return self->delegate(worker, request);
    },
    [self](const messages::chat_done& d) { self->state.done(d); },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

expected<llm::chat_reply, llm::chat_error> actor_chat_client::chat(const llm::chat_request& request) {
  // The supervisor may be restarting the llm actor: look again for a while before giving up.
  auto model = lookup<messages::llm_actor>(system_, llm_name);
  for (auto deadline = std::chrono::steady_clock::now() + patience_;
       !model && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
    model = lookup<messages::llm_actor>(system_, llm_name);
  }
  if (!model)
    return unexpected{llm::chat_error{llm::chat_error_kind::network, "the llm actor is not running", std::nullopt, 0}};
  caf::scoped_actor self{system_};
  expected<llm::chat_reply, llm::chat_error> out =
    unexpected{llm::chat_error{llm::chat_error_kind::network, "no answer from the llm actor", std::nullopt, 0}};
  self->request(model, caf::infinite, request)
    .receive(
      [&](messages::chat_answer& a) {
        if (auto* reply = std::get_if<llm::chat_reply>(&a.outcome))
          out = std::move(*reply);
        else
          out = unexpected{std::get<llm::chat_error>(std::move(a.outcome))};
      },
      [&](caf::error& e) {
        out = unexpected{llm::chat_error{llm::chat_error_kind::network,
                                         "the llm actor failed: " + system_.render(e), std::nullopt, 0}};
      });
  return out;
}

} // namespace warpforge::actors
