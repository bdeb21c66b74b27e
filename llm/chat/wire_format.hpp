#pragma once
// One provider's wire format, behind a small interface so the client's retry, continuation and
// accounting are written once: how a chat_request becomes an HTTP request (path, headers, JSON
// body), how the streamed reply (server-sent events) becomes text, usage and a stop reason, and
// how a reply cut at max_tokens is asked to go on. anthropic_format.hpp and openai_format.hpp
// implement it. No sockets here: everything is testable on strings.

#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::llm {

/// What to send. The headers hold the key: never log or return them.
struct wire_request {
  std::string path;  // appended to the configured base URL, e.g. "/v1/messages"
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;  // JSON
};

/// A problem found in a streamed reply, classified for the retry decision.
struct stream_problem {
  chat_error_kind kind = chat_error_kind::malformed_reply;
  bool retryable = false;  // a fresh attempt may succeed (overloaded, dropped, server error)
  std::string message;     // names the event and what was wrong with it
};

/// One exchange's decoded reply.
struct exchange_reply {
  std::string text;
  stop_reason stop = stop_reason::end;
  token_usage usage;
  bool usage_reported = false;  // false: the server sent no usage (some local servers); usage is 0
  std::string model;            // as the provider named it; may be empty
  std::string id;               // the provider's message id; may be empty
};

/// Decodes one streamed reply, event by event, in order.
class stream_decoder {
public:
  virtual ~stream_decoder() = default;
  /// One server-sent event: its `event:` name (may be empty) and its joined `data:` lines. After
  /// a problem the stream is abandoned.
  virtual std::optional<stream_problem> on_event(std::string_view event, std::string_view data) = 0;
  /// The reply once the stream has ended; a stream that ended early is a retryable problem.
  virtual expected<exchange_reply, stream_problem> finish() = 0;
  /// The tokens reported so far, charged even when the exchange fails (the provider bills them).
  virtual token_usage usage_so_far() const = 0;
};

/// How to continue a reply that stopped at max_tokens.
struct continuation_request {
  chat_request request;  // the original conversation plus the partial reply
  std::size_t keep = 0;  // characters of the partial reply that the next exchange's text follows
};

class wire_format {
public:
  virtual ~wire_format() = default;
  /// "anthropic" or "openai": the start of every message about this provider.
  virtual std::string_view name() const = 0;
  /// The HTTP request for `request`; `key` is empty when none is configured (no auth header is
  /// sent). The error says what in the request cannot be sent (no messages, too many breakpoints).
  virtual expected<wire_request, std::string> encode(const chat_request& request,
                                                     std::string_view key) const = 0;
  virtual std::unique_ptr<stream_decoder> decoder() const = 0;
  /// The request that continues `partial`, the reply so far to `original`.
  virtual continuation_request continuation(const chat_request& original,
                                            std::string_view partial) const = 0;
};

/// What makes `request` unsendable to any provider (no model, no messages, a first message that
/// is not the user's, max_tokens 0), or nullopt.
std::optional<std::string> request_problem(const chat_request& request);

/// The provider's own message from an error response body: Anthropic's and OpenAI's
/// {"error": {"message": ...}}, Ollama's {"error": "..."}, vLLM's {"message": ...}; nullopt when
/// the body is not such JSON (an HTML page from a proxy).
std::optional<std::string> provider_error_message(std::string_view body);

/// The error type a provider names in an error body or error event ("overloaded_error",
/// "rate_limit_exceeded"), or "" when none.
std::string provider_error_type(std::string_view body);

/// The problem an error reported inside a 200 stream stands for, by its type: overloaded and
/// rate-limit errors, timeouts and server errors are retryable; auth and request errors are not.
stream_problem error_event_problem(std::string_view provider, std::string_view type,
                                   std::string_view message);

} // namespace warpforge::llm
