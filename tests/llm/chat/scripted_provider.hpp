#pragma once
// What the client tests share: replies in each provider's documented stream format written by a
// loopback server's handler, and a client configured for that server with short timeouts, a
// seeded jitter, a recognisable key and back-off waits recorded instead of slept.

#include "llm/chat/chat.hpp"
#include "llm/chat/provider_client.hpp"
#include "tests/llm/support/loopback_server.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm::scripted {

using llm::testing::connection;
using llm::testing::loopback_server;

/// The key the tests configure: recognisable, so a test can assert it appears nowhere.
inline constexpr std::string_view secret_key = "sk-test-SECRET-7f3a9c2e5b1d";
inline constexpr std::string_view key_variable = "WARPFORGE_TEST_LLM_KEY";

/// The back-off waits a client asked for, in order.
class recorded_waits {
public:
  void add(std::chrono::milliseconds wait);
  std::vector<std::chrono::milliseconds> all() const;

private:
  mutable std::mutex mutex_;
  std::vector<std::chrono::milliseconds> waits_;
};

struct usage_counts {
  std::int64_t input = 25, output = 15, cache_read = 0, cache_write = 0; // tokens
};

/// A whole Anthropic Messages stream: message_start, one text block in two deltas, message_delta
/// with `stop`, message_stop.
void anthropic_reply(connection& c, std::string_view text, std::string_view stop = "end_turn",
                     usage_counts usage = {});
/// The start of an Anthropic stream (message_start, a block, a first delta) and nothing more.
void anthropic_partial(connection& c, std::string_view text, usage_counts usage = {});

/// A whole chat-completions stream: content chunks, a finish_reason, a usage chunk (unless
/// `with_usage` is false, as some local servers do), [DONE].
void openai_reply(connection& c, std::string_view text, std::string_view finish = "stop",
                  usage_counts usage = {}, bool with_usage = true);

/// A client for `server` speaking `provider`: key from key_variable (unless `with_key` is false),
/// 3 attempts, 1 ms back-off base, short timeouts, waits recorded in `waits`.
client_config config_for(provider_kind provider, const loopback_server& server,
                         std::shared_ptr<recorded_waits> waits, bool with_key = true);

std::unique_ptr<chat_client> make_client(const client_config& config,
                                         std::shared_ptr<spend_ledger> ledger = nullptr);

/// A one-message request for `model`.
chat_request simple_request(std::string model = "claude-sonnet-4-5");

} // namespace warpforge::llm::scripted
