#pragma once
// A chat_client for one configured provider: Anthropic's Messages API or an OpenAI-compatible
// server (OpenAI, vLLM, llama.cpp, Ollama). Per call it
//   1. refuses to start when the spend ledger is exhausted (a call in flight always completes);
//   2. reads the key from the named environment variable (never stored, logged or returned);
//   3. sends the request, at most max_concurrent exchanges of this client in flight at once;
//   4. retries retryable failures (429, 5xx, 529, overloaded or server error events in a stream,
//      network failures, timeouts) with the retry policy's back-off, honouring Retry-After;
//      a non-retryable status (400, 401, 403, 404) fails at once with the provider's own message;
//   5. continues a reply cut at max_tokens, up to max_continuations, texts concatenated;
//   6. charges every exchange's tokens and cost to the ledger (failed attempts too).

#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"
#include "llm/chat/prices.hpp"
#include "llm/chat/spend_ledger.hpp"
#include "llm/http/proxy.hpp"
#include "llm/http/retry.hpp"
#include "llm/http/timeouts.hpp"
#include "llm/providers.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace warpforge::llm {

struct client_config {
  provider_kind provider = provider_kind::anthropic;
  std::string base_url;     // "https://api.anthropic.com", "https://api.openai.com/v1",
                            // "http://127.0.0.1:8000/v1" (the format appends its path)
  std::string api_key_env;  // the NAME of the variable holding the key; empty: no key (a local server)
  http::timeouts limits;    // per exchange
  http::retry_policy retry;
  std::uint32_t max_concurrent = 4;    // exchanges of this client in flight at once
  std::uint32_t max_continuations = 3; // exchanges continuing a reply cut at max_tokens
  std::string ca_file;      // a PEM file of the only CAs trusted; empty: the system's
  http::env_lookup env;     // where the key and proxy variables are read; empty: this process's
  // How a back-off waits; empty: std::this_thread::sleep_for. Tests record the waits instead.
  std::function<void(std::chrono::milliseconds)> sleep;
  std::uint64_t jitter_seed = 0;  // seeds the back-off jitter; 0: a random seed
};

/// A client for `config`; the error names the setting that is wrong (an unparsable base_url, an
/// http:// base_url to a host other than this one while a key is configured, a
/// zero limit). `ledger` may be null: nothing is charged and no budget applies.
expected<std::unique_ptr<chat_client>, std::string> make_provider_client(
  client_config config, std::shared_ptr<spend_ledger> ledger, price_table prices);

} // namespace warpforge::llm
