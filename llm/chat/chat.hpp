#pragma once
// The provider-neutral conversation with a model: what the proposer asks (chat_request), what comes
// back (chat_reply) or why nothing came back (chat_error), and the one interface every provider's
// client implements (chat_client). Nothing here knows a wire format; anthropic_format and
// openai_format translate, provider_client carries the exchange.

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

/// One block of the system prompt. Stable blocks come first so providers' prompt caches hit.
struct text_block {
  std::string text;
  // A stable prefix ends here: an Anthropic cache_control breakpoint (at most 4 per request, all
  // on system blocks). OpenAI-compatible servers cache prefixes on their own and ignore it.
  bool cache = false;
};

enum class role { user, assistant };
std::string_view to_string(role who);

struct chat_message {
  role who = role::user;
  std::string text;
};

struct chat_request {
  std::string model;                 // the provider's model name, e.g. "claude-sonnet-4-5"
  std::vector<text_block> system;    // joined into one system message for OpenAI-compatible servers
  std::vector<chat_message> messages;  // alternating turns, the first a user's
  std::uint32_t max_tokens = 8192;   // output tokens per exchange (each continuation gets as many)
  std::optional<double> temperature; // absent: the provider's default
  std::string purpose;               // "propose", "fix", "judge", "compact", "ping": for accounting
  // Continuations allowed after a reply stops at max_tokens; absent: the client's own limit.
  // A ping sets 0: its one token is meant to be cut short.
  std::optional<std::uint32_t> max_continuations;
};

/// Tokens of one exchange or a sum of them. `input` counts only the tokens billed at the full
/// input price: prompt tokens read from or written to a cache are counted in `cache_read` and
/// `cache_write` instead (OpenAI's prompt_tokens include its cached_tokens; they are split here).
struct token_usage {
  std::int64_t input = 0;       // tokens
  std::int64_t output = 0;      // tokens
  std::int64_t cache_read = 0;  // tokens
  std::int64_t cache_write = 0; // tokens

  token_usage& operator+=(const token_usage& other);
  /// Every token of the usage, whatever its price.
  std::int64_t total() const;
  bool operator==(const token_usage&) const = default;
};

/// Why the model stopped writing.
enum class stop_reason {
  end,           // it finished its turn
  max_tokens,    // it ran out of max_tokens (continued by the client up to its limit)
  stop_sequence, // it wrote a stop sequence
  refusal,       // it declined (Anthropic "refusal", OpenAI "content_filter")
  other,         // anything else the provider reported (tool use, pause)
};
std::string_view to_string(stop_reason reason);
std::optional<stop_reason> stop_reason_from_string(std::string_view text);
inline constexpr stop_reason all_stop_reasons[] = {stop_reason::end, stop_reason::max_tokens,
                                                   stop_reason::stop_sequence, stop_reason::refusal,
                                                   stop_reason::other};

struct chat_reply {
  std::string text;             // the whole reply, continuations concatenated
  stop_reason stop = stop_reason::end;  // of the last exchange
  token_usage usage;            // summed over every exchange, failed attempts included
  double cost_usd = 0;          // of `usage` at the price table's rates (0 for a local server)
  std::uint32_t attempts = 1;   // HTTP exchanges made, retries and continuations included
  std::uint32_t continuations = 0;  // exchanges that continued a reply cut at max_tokens
  std::string model;            // as the provider named it (may carry a date suffix)
  std::string request_id;       // the provider's id of the last exchange, for support requests
  double seconds = 0;           // wall time of the whole call, all attempts and back-offs
  std::vector<std::string> notes;  // what the caller should know, e.g. "no token usage reported"
};

/// What went wrong, classified by what the caller can do about it.
enum class chat_error_kind {
  config,           // a setting is wrong or missing (no key in the named variable, bad URL)
  auth,             // the provider refused the key (401, 403)
  bad_request,      // the provider rejected the request (400, 404, 413, 422)
  rate_limited,     // 429, retries spent
  overloaded,       // 529 or an overloaded_error event, retries spent
  server_error,     // 5xx, retries spent
  network,          // resolve, connect, TLS, proxy or a dropped connection, retries spent
  timeout,          // connect, first byte, idle or total timeout, retries spent
  malformed_reply,  // the reply is not the provider's documented format
  budget_exhausted, // the spend ledger refuses new calls
};
std::string_view to_string(chat_error_kind kind);
std::optional<chat_error_kind> chat_error_kind_from_string(std::string_view text);
inline constexpr chat_error_kind all_chat_error_kinds[] = {
  chat_error_kind::config,       chat_error_kind::auth,         chat_error_kind::bad_request,
  chat_error_kind::rate_limited, chat_error_kind::overloaded,   chat_error_kind::server_error,
  chat_error_kind::network,      chat_error_kind::timeout,      chat_error_kind::malformed_reply,
  chat_error_kind::budget_exhausted};

struct chat_error {
  chat_error_kind kind = chat_error_kind::config;
  std::string message;                  // names the provider, the step and the cause; never a key
  std::optional<unsigned> http_status;  // of the last exchange, when one answered
  std::uint32_t attempts = 0;           // HTTP exchanges made before giving up
};

/// A model to talk to. Implementations are thread-safe: many branches call chat() at once.
class chat_client {
public:
  virtual ~chat_client() = default;
  /// Blocks until the reply is complete (continuations included) or the call has failed.
  /// Never throws.
  virtual expected<chat_reply, chat_error> chat(const chat_request& request) = 0;
};

} // namespace warpforge::llm
