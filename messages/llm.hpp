#pragma once
// llm: requests to a language model in, its replies out (llm/chat/chat.hpp: one provider-neutral
// request and reply). Each request is carried by a detached worker of its own (an HTTP exchange
// blocks for minutes), so the K branches of many jobs are asked at once; the provider client's
// concurrency limit, retries and budget apply to all of them together.

#include "llm/chat/chat.hpp"
#include "messages/inspect_support.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <optional>
#include <variant>

namespace warpforge::llm {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, text_block& x) {
  return f(caf::meta::type_name("text_block"), x.text, x.cache);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chat_message& x) {
  return f(caf::meta::type_name("chat_message"), x.who, x.text);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chat_request& x) {
  auto temperature = messages::optional_field(x.temperature);
  return f(caf::meta::type_name("chat_request"), x.model, x.system, x.messages, x.max_tokens, temperature, x.purpose);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, token_usage& x) {
  return f(caf::meta::type_name("token_usage"), x.input, x.output, x.cache_read, x.cache_write);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chat_reply& x) {
  return f(caf::meta::type_name("chat_reply"), x.text, x.stop, x.usage, x.cost_usd, x.attempts, x.continuations,
           x.model, x.request_id, x.seconds, x.notes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chat_error& x) {
  auto status = messages::optional_field(x.http_status);
  return f(caf::meta::type_name("chat_error"), x.kind, x.message, status, x.attempts);
}

} // namespace warpforge::llm

namespace warpforge::messages {

/// A chat's outcome as a message (expected<> is not a CAF type): the model's reply, or the error
/// that says why none came (its kind, llm::chat_error_kind, is what a caller decides on; its
/// message is the detail for a person). One field, so a reply and an error never come together.
struct chat_answer {
  std::variant<llm::chat_reply, llm::chat_error> outcome;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chat_answer& x) {
  auto outcome = messages::variant_field(x.outcome);
  return f(caf::meta::type_name("chat_answer"), outcome);
}

/// A worker's word to the llm actor when its request has ended: what the status counts.
struct chat_done {
  std::optional<llm::chat_error_kind> failure; // none: the model replied
  std::int64_t tokens = 0;                     // every kind
  double cost_usd = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chat_done& x) {
  auto failure = messages::optional_field(x.failure);
  return f(caf::meta::type_name("chat_done"), failure, x.tokens, x.cost_usd);
}

/// One request's worker: asks the model, answers, tells the llm actor, and quits.
using llm_worker_actor = caf::typed_actor<caf::replies_to<llm::chat_request>::with<chat_answer>>;

/// llm: the campaign's model behind one client (its budget, retries and concurrency limit).
using llm_actor = caf::typed_actor<
  caf::replies_to<llm::chat_request>::with<chat_answer>, // the reply, or why none came
  caf::reacts_to<chat_done>,                             // a worker ended (status counters)
  caf::reacts_to<stop_atom>,                             // quit; requests in flight end on their own
  status_handler>;

} // namespace warpforge::messages
