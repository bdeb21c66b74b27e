#pragma once
// llm: one completion request to a configured provider (Anthropic Messages or an
// OpenAI-compatible chat endpoint) through the HTTPS client pool.

#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::messages {

struct llm_request {
  std::string provider;        // "anthropic" | "openai"
  std::string model;
  std::string system;          // system prompt
  std::string prompt;          // user turn
  std::uint32_t max_tokens = 0;
  friend bool operator==(const llm_request&, const llm_request&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_request& x) {
  return f(caf::meta::type_name("llm_request"), x.provider, x.model, x.system, x.prompt,
           x.max_tokens);
}

struct llm_reply {
  std::string text;
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;
  double latency_s = 0; // request to last byte, seconds
  friend bool operator==(const llm_reply&, const llm_reply&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_reply& x) {
  return f(caf::meta::type_name("llm_reply"), x.text, x.input_tokens, x.output_tokens,
           x.latency_s);
}

using llm_actor = caf::typed_actor<caf::replies_to<llm_request>::with<llm_reply>, status_handler>;

} // namespace warpforge::messages
