#pragma once
// One HTTP exchange with a provider: send the encoded request over llm/http, read the response
// head, and either feed the body's server-sent events to the format's decoder or collect the error
// body. Every way it can end is classified (kind, retryable, Retry-After) for the retry loop in
// provider_client. Internal to llm/chat.

#include "foundation/expected/expected.hpp"
#include "llm/chat/wire_format.hpp"
#include "llm/http/proxy.hpp"
#include "llm/http/timeouts.hpp"
#include "llm/http/url.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace warpforge::llm {

/// Where and how to send.
struct exchange_target {
  std::string_view provider;  // "anthropic", "openai": starts every message
  http::url base;             // the configured base URL
  http::timeouts limits;
  std::string ca_file;        // empty: the system's CAs
  const http::env_lookup* env = nullptr;  // for the proxy variables
};

/// Why an exchange gave no reply.
struct exchange_failure {
  chat_error_kind kind = chat_error_kind::network;
  bool retryable = false;
  std::string message;                                  // provider, step, cause
  std::optional<unsigned> http_status;                  // when a response head arrived
  std::optional<std::chrono::milliseconds> retry_after; // the server's Retry-After, when given
};

/// Sends `wire` and decodes the reply with `decoder`. The reply's id is the response's
/// request-id / x-request-id header when there is one, else the id in the stream.
expected<exchange_reply, exchange_failure> run_exchange(const exchange_target& target,
                                                        const wire_request& wire,
                                                        stream_decoder& decoder);

/// The kind a non-2xx status stands for (401 auth, 429 rate_limited, 529 overloaded, ...).
chat_error_kind kind_of_status(unsigned status);

} // namespace warpforge::llm
