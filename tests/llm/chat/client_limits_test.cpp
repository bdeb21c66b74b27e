// What bounds a client: budgets, the concurrency limit, a key that must never be shown; its
// configuration errors; and the doctor's ping.
#include "llm/chat/ping.hpp"
#include "llm/chat/provider_client.hpp"
#include "foundation/logging/logging.hpp"
#include "tests/llm/chat/scripted_provider.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace warpforge::llm {
namespace {

using namespace std::chrono_literals;
using scripted::connection;
using scripted::loopback_server;
using testing::in_order;

std::shared_ptr<scripted::recorded_waits> no_waits() {
  return std::make_shared<scripted::recorded_waits>();
}

TEST(client_budget, refuses_to_start_a_call_once_the_ledger_is_exhausted) {
  loopback_server server{[](connection& c) { scripted::anthropic_reply(c, "never sent"); }};
  auto ledger = std::make_shared<spend_ledger>(spend_limits{.max_usd = 0.01, .max_tokens = {}});
  ledger->charge("propose", {}, 0.02);
  auto client =
    scripted::make_client(scripted::config_for(provider_kind::anthropic, server, no_waits()), ledger);
  auto result = client->chat(scripted::simple_request());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::budget_exhausted);
  EXPECT_EQ(result.error().attempts, 0u);
  EXPECT_NE(result.error().message.find("budget"), std::string::npos) << result.error().message;
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(client_budget, a_call_in_flight_completes_and_the_next_one_is_refused) {
  loopback_server server{[](connection& c) {
    scripted::anthropic_reply(c, "expensive", "end_turn", {1'000'000, 100'000, 0, 0});
  }};
  auto ledger = std::make_shared<spend_ledger>(spend_limits{.max_usd = 1.0, .max_tokens = {}});
  auto client =
    scripted::make_client(scripted::config_for(provider_kind::anthropic, server, no_waits()), ledger);
  auto first = client->chat(scripted::simple_request());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_NEAR(first->cost_usd, 3.0 + 1.5, 1e-9); // sonnet: 1M input at $3, 100k output at $15/M
  EXPECT_NEAR(ledger->total().usd, first->cost_usd, 1e-12);
  auto second = client->chat(scripted::simple_request());
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, chat_error_kind::budget_exhausted);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(client_budget, a_token_budget_applies_to_unpriced_local_models_too) {
  loopback_server server{[](connection& c) { scripted::openai_reply(c, "ok", "stop", {600, 500, 0, 0}); }};
  auto ledger = std::make_shared<spend_ledger>(spend_limits{.max_usd = {}, .max_tokens = 1000});
  auto client = scripted::make_client(
    scripted::config_for(provider_kind::openai, server, no_waits(), false), ledger);
  ASSERT_TRUE(client->chat(scripted::simple_request("llama-3.1-8b")));
  EXPECT_EQ(ledger->total().usage.total(), 1100);
  auto refused = client->chat(scripted::simple_request("llama-3.1-8b"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, chat_error_kind::budget_exhausted);
}

TEST(client_concurrency, never_has_more_than_max_concurrent_exchanges_in_flight) {
  std::atomic<int> in_flight{0};
  std::atomic<int> peak{0};
  loopback_server server{[&](connection& c) {
    // Counted from the request's arrival to before the first byte of the answer: while the
    // client still waits, so this count can never exceed the client's own.
    const int now = ++in_flight;
    for (int seen = peak.load(); now > seen && !peak.compare_exchange_weak(seen, now);) {
    }
    c.sleep(60ms);
    --in_flight;
    scripted::anthropic_reply(c, "done");
  }};
  auto config = scripted::config_for(provider_kind::anthropic, server, no_waits());
  config.max_concurrent = 2;
  auto client = scripted::make_client(config);
  std::atomic<int> succeeded{0};
  std::vector<std::thread> branches;
  for (int i = 0; i < 6; ++i)
    branches.emplace_back([&] {
      if (client->chat(scripted::simple_request()))
        ++succeeded;
    });
  for (auto& branch : branches)
    branch.join();
  EXPECT_EQ(succeeded.load(), 6);
  EXPECT_EQ(server.request_count(), 6u);
  EXPECT_LE(peak.load(), 2);
  EXPECT_LE(server.peak_in_flight(), 3u); // the server's own count may overlap one closing answer
}

// Every failing path, with a server that echoes the key back wherever it can.
TEST(client_secrecy, the_key_appears_in_no_error_and_no_log_line) {
  const std::string key{scripted::secret_key};
  const auto log_file = std::filesystem::temp_directory_path() /
                        ("warpforge_llm_chat_secrecy_" + std::to_string(::getpid()) + ".log");
  ASSERT_TRUE(logging::add_file_sink(log_file));
  loopback_server server{in_order({
    [&](connection& c) { c.respond(500, R"({"error":{"message":"bad key )" + key + R"("}})"); },
    [&](connection& c) { c.respond(500, "<html>" + key + "</html>", {}, "text/html"); },
    [&](connection& c) { c.respond(500, R"({"error":{"message":"still )" + key + R"("}})"); },
    [&](connection& c) { c.respond(401, R"({"error":{"message":"Incorrect API key )" + key + R"("}})"); },
    [&](connection& c) {
      c.start_sse();
      c.send_event("message_start", "garbage " + key);
      c.end_chunked();
    },
    [&](connection& c) {
      c.start_sse();
      c.send_event("error", R"({"type":"error","error":{"type":"invalid_request_error","message":")" +
                              key + R"("}})");
      c.end_chunked();
    }})};
  auto client =
    scripted::make_client(scripted::config_for(provider_kind::anthropic, server, no_waits()));
  std::vector<std::string> messages;
  for (int call = 0; call < 4; ++call) {
    auto result = client->chat(scripted::simple_request());
    ASSERT_FALSE(result) << "call " << call;
    messages.push_back(result.error().message);
  }
  auto config = scripted::config_for(provider_kind::anthropic, server, no_waits());
  config.api_key_env = "WARPFORGE_TEST_UNSET_KEY";
  auto unset = scripted::make_client(config)->chat(scripted::simple_request());
  ASSERT_FALSE(unset);
  EXPECT_EQ(unset.error().kind, chat_error_kind::config);
  EXPECT_NE(unset.error().message.find("WARPFORGE_TEST_UNSET_KEY"), std::string::npos);
  messages.push_back(unset.error().message);
  logging::shutdown();

  ASSERT_EQ(messages.size(), 5u);
  for (const auto& message : messages) {
    EXPECT_EQ(message.find(key), std::string::npos) << message;
    EXPECT_EQ(message.find("SECRET"), std::string::npos) << message;
  }
  EXPECT_NE(messages[0].find("[redacted]"), std::string::npos) << messages[0];
  std::ifstream in{log_file};
  std::stringstream log;
  log << in.rdbuf();
  EXPECT_NE(log.str().find("retry"), std::string::npos); // the retries were logged...
  EXPECT_EQ(log.str().find(key), std::string::npos);     // ...without the key
  std::filesystem::remove(log_file);
}

TEST(client_secrecy, reads_the_key_from_the_environment_at_each_call) {
  loopback_server server{[](connection& c) { scripted::openai_reply(c, "ok"); }};
  auto current = std::make_shared<std::string>("sk-first");
  auto config = scripted::config_for(provider_kind::openai, server, no_waits());
  config.env = [current](std::string_view name) -> std::optional<std::string> {
    if (name == scripted::key_variable)
      return *current;
    return std::nullopt;
  };
  auto client = scripted::make_client(config);
  ASSERT_TRUE(client->chat(scripted::simple_request("gpt-4.1")));
  *current = "sk-rotated";
  ASSERT_TRUE(client->chat(scripted::simple_request("gpt-4.1")));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].header("authorization"), "Bearer sk-first");
  EXPECT_EQ(requests[1].header("authorization"), "Bearer sk-rotated");
}

TEST(client_config, a_bad_base_url_or_a_zero_limit_is_refused_by_name) {
  client_config config;
  config.base_url = "api.anthropic.com";
  auto prices = price_table::built_in();
  ASSERT_TRUE(prices);
  auto no_scheme = make_provider_client(config, nullptr, *prices);
  ASSERT_FALSE(no_scheme);
  EXPECT_TRUE(no_scheme.error().starts_with("base_url: ")) << no_scheme.error();
  config.base_url = "https://api.anthropic.com";
  config.max_concurrent = 0;
  auto zero = make_provider_client(config, nullptr, *prices);
  ASSERT_FALSE(zero);
  EXPECT_TRUE(zero.error().starts_with("max_concurrent")) << zero.error();
}

TEST(client_config, plain_http_to_another_host_is_refused_while_a_key_is_configured) {
  // Refused when the client is made, before any connection exists: `.invalid` never resolves
  // either, so this test cannot reach the network whatever the client did.
  auto prices = price_table::built_in();
  ASSERT_TRUE(prices);
  client_config config;
  config.provider = provider_kind::openai;
  config.api_key_env = "WF_TEST_LLM_CREDENTIAL";
  for (const std::string remote : {"http://llm.invalid:8000/v1", "http://192.0.2.2:8000/v1", "http://[2001:db8::1]/v1"}) {
    config.base_url = remote;
    auto refused = make_provider_client(config, nullptr, *prices);
    ASSERT_FALSE(refused) << remote;
    EXPECT_TRUE(refused.error().starts_with("base_url: ")) << refused.error();
    EXPECT_NE(refused.error().find("WF_TEST_LLM_CREDENTIAL"), std::string::npos) << refused.error();
  }
  // Loopback stays allowed with a key (a local server), and any host without one.
  for (const std::string local : {"http://127.0.0.1:8000/v1", "http://localhost:8000/v1", "http://[::1]:8000/v1"}) {
    config.base_url = local;
    EXPECT_TRUE(make_provider_client(config, nullptr, *prices)) << local;
  }
  config.base_url = "https://llm.invalid/v1";
  EXPECT_TRUE(make_provider_client(config, nullptr, *prices));
  config.base_url = "http://llm.invalid:8000/v1";
  config.api_key_env.clear();
  EXPECT_TRUE(make_provider_client(config, nullptr, *prices));
}

TEST(client_ping, asks_for_one_token_without_continuing_it) {
  loopback_server server{[](connection& c) { scripted::anthropic_reply(c, "po", "max_tokens", {12, 1, 0, 0}); }};
  auto client =
    scripted::make_client(scripted::config_for(provider_kind::anthropic, server, no_waits()));
  const ping_result result = ping(*client, "claude-haiku-4-5");
  EXPECT_TRUE(result.ok) << result.detail;
  EXPECT_NE(result.detail.find("answered in"), std::string::npos) << result.detail;
  EXPECT_GE(result.seconds, 0.0);
  ASSERT_EQ(server.request_count(), 1u);
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(server.requests()[0].body);
  EXPECT_EQ(int64_t{body["max_tokens"]}, 1);
}

TEST(client_ping, a_refused_key_is_reported_without_the_key) {
  loopback_server server{[](connection& c) {
    c.respond(401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key )" +
                     std::string{scripted::secret_key} + R"("}})");
  }};
  auto client =
    scripted::make_client(scripted::config_for(provider_kind::anthropic, server, no_waits()));
  const ping_result result = ping(*client, "claude-haiku-4-5");
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.detail.starts_with("auth: ")) << result.detail;
  EXPECT_NE(result.detail.find("invalid x-api-key"), std::string::npos);
  EXPECT_EQ(result.detail.find(scripted::secret_key), std::string::npos) << result.detail;
}

} // namespace
} // namespace warpforge::llm
