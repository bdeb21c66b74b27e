// The client against loopback servers speaking each provider's wire format: what goes out, what
// comes back, retries, continuation and the failures that end a call.
#include "llm/chat/provider_client.hpp"
#include "tests/llm/chat/scripted_provider.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

namespace warpforge::llm {
namespace {

using namespace std::chrono_literals;
using scripted::connection;
using scripted::loopback_server;
using testing::in_order;

// The same behaviour, asked of both providers.
class either_provider : public ::testing::TestWithParam<provider_kind> {
protected:
  bool anthropic() const { return GetParam() == provider_kind::anthropic; }
  std::string model() const { return anthropic() ? "claude-sonnet-4-5" : "gpt-4.1"; }
  std::string path() const { return anthropic() ? "/v1/messages" : "/v1/chat/completions"; }
  // A whole reply in this provider's format.
  void reply(connection& c, std::string_view text, bool truncated = false,
             scripted::usage_counts usage = {}) const {
    if (anthropic())
      scripted::anthropic_reply(c, text, truncated ? "max_tokens" : "end_turn", usage);
    else
      scripted::openai_reply(c, text, truncated ? "length" : "stop", usage);
  }
  std::unique_ptr<chat_client> client_for(const loopback_server& server,
                                          std::shared_ptr<spend_ledger> ledger = nullptr) {
    return scripted::make_client(scripted::config_for(GetParam(), server, waits), ledger);
  }
  std::shared_ptr<scripted::recorded_waits> waits = std::make_shared<scripted::recorded_waits>();
};

INSTANTIATE_TEST_SUITE_P(providers, either_provider,
                         ::testing::Values(provider_kind::anthropic, provider_kind::openai),
                         [](const auto& provider) { return std::string{to_string(provider.param)}; });

TEST_P(either_provider, sends_the_documented_request_and_returns_text_usage_and_cost) {
  loopback_server server{[this](connection& c) { reply(c, "__global__ void k() {}"); }};
  auto client = client_for(server);
  auto result = client->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "__global__ void k() {}");
  EXPECT_EQ(result->stop, stop_reason::end);
  EXPECT_EQ(result->usage, (token_usage{25, 15, 0, 0}));
  EXPECT_EQ(result->attempts, 1u);
  EXPECT_EQ(result->continuations, 0u);
  // Priced from the table: sonnet 3 + 15 $/Mtok, gpt-4.1 2 + 8 $/Mtok.
  const double expected_cost = anthropic() ? (25 * 3.0 + 15 * 15.0) * 1e-6 : (25 * 2.0 + 15 * 8.0) * 1e-6;
  EXPECT_NEAR(result->cost_usd, expected_cost, 1e-12);
  EXPECT_EQ(result->request_id, anthropic() ? "req_test_1" : "req_openai_1");
  EXPECT_FALSE(result->model.empty());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, path());
  if (anthropic()) {
    EXPECT_EQ(requests[0].header("x-api-key"), std::string{scripted::secret_key});
    EXPECT_EQ(requests[0].header("anthropic-version"), "2023-06-01");
  } else {
    EXPECT_EQ(requests[0].header("authorization"), "Bearer " + std::string{scripted::secret_key});
  }
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(requests[0].body);
  EXPECT_EQ(std::string_view{body["model"]}, model());
  EXPECT_TRUE(bool{body["stream"]});
}

TEST_P(either_provider, waits_as_long_as_retry_after_says_after_a_429) {
  loopback_server server{in_order({
    [](connection& c) {
      c.respond(429, R"({"error":{"type":"rate_limit_error","message":"slow down"}})",
                {{"Retry-After", "2"}});
    },
    [this](connection& c) { reply(c, "ok"); }})};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "ok");
  EXPECT_EQ(result->attempts, 2u);
  ASSERT_EQ(waits->all().size(), 1u);
  EXPECT_EQ(waits->all()[0], 2000ms); // the server's 2 s, not the 1 ms back-off
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_P(either_provider, retries_a_500_then_succeeds) {
  loopback_server server{in_order({
    [](connection& c) { c.respond(500, R"({"error":{"type":"api_error","message":"boom"}})"); },
    [this](connection& c) { reply(c, "second time"); }})};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "second time");
  EXPECT_EQ(result->attempts, 2u);
  ASSERT_EQ(waits->all().size(), 1u);
  EXPECT_LE(waits->all()[0], 8ms); // back-off from the policy: 1 ms base, 8 ms cap
}

TEST_P(either_provider, continues_a_reply_cut_at_max_tokens_and_concatenates) {
  loopback_server server{in_order({
    [this](connection& c) { reply(c, "first half, ", true, {100, 256, 0, 0}); },
    [this](connection& c) { reply(c, " second half", false, {120, 30, 0, 0}); }})};
  auto ledger = std::make_shared<spend_ledger>();
  auto result = client_for(server, ledger)->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->continuations, 1u);
  EXPECT_EQ(result->attempts, 2u);
  EXPECT_EQ(result->stop, stop_reason::end);
  EXPECT_EQ(result->usage, (token_usage{220, 286, 0, 0}));
  // Anthropic continues a trimmed prefill (the API rejects trailing whitespace); OpenAI keeps it.
  EXPECT_EQ(result->text, anthropic() ? "first half, second half" : "first half,  second half");
  EXPECT_EQ(ledger->of("propose").charges, 2u);
  EXPECT_NEAR(ledger->of("propose").usd, result->cost_usd, 1e-12);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(requests[1].body);
  simdjson::dom::array messages = body["messages"];
  if (anthropic()) {
    ASSERT_EQ(messages.size(), 2u);
    EXPECT_EQ(std::string_view{messages.at(1)["role"]}, "assistant");
    EXPECT_EQ(std::string_view{messages.at(1)["content"]}, "first half,");
  } else {
    ASSERT_EQ(messages.size(), 4u); // system, user, the partial reply, "continue"
    EXPECT_EQ(std::string_view{messages.at(2)["role"]}, "assistant");
    EXPECT_EQ(std::string_view{messages.at(2)["content"]}, "first half, ");
    EXPECT_EQ(std::string_view{messages.at(3)["role"]}, "user");
  }
}

TEST_P(either_provider, stops_continuing_at_the_limit_and_says_the_reply_is_cut) {
  loopback_server server{[this](connection& c) { reply(c, "more", true); }};
  auto config = scripted::config_for(GetParam(), server, waits);
  config.max_continuations = 2;
  auto result = scripted::make_client(config)->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stop, stop_reason::max_tokens);
  EXPECT_EQ(result->continuations, 2u);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(result->text, "moremoremore");
}

TEST_P(either_provider, garbage_in_the_stream_is_a_malformed_reply_without_retry) {
  loopback_server server{[](connection& c) {
    c.start_sse();
    c.send_event("message_start", "{\"type\": message_start broken");
    c.end_chunked();
  }};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::malformed_reply);
  EXPECT_EQ(result.error().attempts, 1u);
  EXPECT_NE(result.error().message.find("not JSON"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("message_start broken"), std::string::npos);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_P(either_provider, an_html_page_with_200_is_a_malformed_reply) {
  loopback_server server{[](connection& c) {
    c.respond(200, "<html><body>Welcome to the captive portal</body></html>", {}, "text/html");
  }};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::malformed_reply);
  EXPECT_NE(result.error().message.find("text/html"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("captive portal"), std::string::npos);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_P(either_provider, an_html_502_page_is_retried_then_reported_with_its_title) {
  loopback_server server{[](connection& c) {
    c.respond(502, "<html><head><title>502 Bad Gateway</title></head></html>", {}, "text/html");
  }};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::server_error);
  EXPECT_EQ(result.error().http_status, 502u);
  EXPECT_EQ(result.error().attempts, 3u);
  EXPECT_NE(result.error().message.find("not the provider's JSON error (text/html)"),
            std::string::npos)
    << result.error().message;
  EXPECT_NE(result.error().message.find("502 Bad Gateway"), std::string::npos);
  EXPECT_NE(result.error().message.find("gave up after 3 attempts"), std::string::npos);
  EXPECT_EQ(waits->all().size(), 2u);
}

TEST_P(either_provider, a_slow_first_byte_times_out_and_the_retry_succeeds) {
  loopback_server server{in_order({
    [](connection& c) { c.sleep(3s); },
    [this](connection& c) { reply(c, "awake"); }})};
  auto config = scripted::config_for(GetParam(), server, waits);
  config.limits.first_byte = 150ms;
  auto result = scripted::make_client(config)->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "awake");
  EXPECT_EQ(result->attempts, 2u);
}

TEST_P(either_provider, a_connection_dropped_mid_stream_is_asked_again_from_the_start) {
  loopback_server server{in_order({
    [this](connection& c) {
      if (anthropic())
        scripted::anthropic_partial(c, "half a ker");
      else {
        c.start_sse();
        c.send_event("", R"({"id":"x","choices":[{"index":0,"delta":{"content":"half a ker"},"finish_reason":null}]})");
      }
      c.close();
    },
    [this](connection& c) { reply(c, "whole kernel"); }})};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "whole kernel"); // nothing of the dropped attempt is kept
  EXPECT_EQ(result->attempts, 2u);
  // Anthropic reported the dropped attempt's input tokens before the drop: they are billed.
  EXPECT_EQ(result->usage.input, anthropic() ? 50 : 25);
}

TEST_P(either_provider, a_401_fails_at_once_with_the_providers_message) {
  loopback_server server{[](connection& c) {
    c.respond(401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})");
  }};
  auto result = client_for(server)->chat(scripted::simple_request(model()));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::auth);
  EXPECT_EQ(result.error().http_status, 401u);
  EXPECT_EQ(result.error().attempts, 1u);
  EXPECT_NE(result.error().message.find("invalid x-api-key"), std::string::npos)
    << result.error().message;
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(waits->all().empty());
}

TEST_P(either_provider, gives_up_when_retries_are_exhausted_with_growing_waits) {
  loopback_server server{[](connection& c) {
    c.respond(503, R"({"error":{"message":"unavailable","type":"server_error"}})");
  }};
  auto config = scripted::config_for(GetParam(), server, waits);
  config.retry.max_attempts = 4;
  config.retry.base = 10ms;
  config.retry.cap = 1000ms;
  config.retry.jitter = 0.0;
  auto result = scripted::make_client(config)->chat(scripted::simple_request(model()));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::server_error);
  EXPECT_EQ(result.error().attempts, 4u);
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(waits->all(), (std::vector<std::chrono::milliseconds>{10ms, 20ms, 40ms}));
}

TEST(anthropic_client, a_529_is_an_overload_that_is_retried) {
  auto waits = std::make_shared<scripted::recorded_waits>();
  loopback_server server{in_order({
    [](connection& c) {
      c.respond(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
    },
    [](connection& c) { scripted::anthropic_reply(c, "fine now"); }})};
  auto client = scripted::make_client(scripted::config_for(provider_kind::anthropic, server, waits));
  auto result = client->chat(scripted::simple_request());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "fine now");
  EXPECT_EQ(result->attempts, 2u);
}

TEST(anthropic_client, an_overloaded_error_event_inside_a_200_stream_is_retried) {
  auto waits = std::make_shared<scripted::recorded_waits>();
  loopback_server server{in_order({
    [](connection& c) {
      scripted::anthropic_partial(c, "start");
      c.send_event("error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
      c.end_chunked();
    },
    [](connection& c) { scripted::anthropic_reply(c, "complete"); }})};
  auto client = scripted::make_client(scripted::config_for(provider_kind::anthropic, server, waits));
  auto result = client->chat(scripted::simple_request());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "complete");
  EXPECT_EQ(result->attempts, 2u);
  EXPECT_EQ(waits->all().size(), 1u);
}

TEST(anthropic_client, an_overload_that_never_ends_is_reported_as_overloaded) {
  auto waits = std::make_shared<scripted::recorded_waits>();
  loopback_server server{[](connection& c) {
    c.respond(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  }};
  auto client = scripted::make_client(scripted::config_for(provider_kind::anthropic, server, waits));
  auto result = client->chat(scripted::simple_request());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, chat_error_kind::overloaded);
  EXPECT_EQ(result.error().http_status, 529u);
  EXPECT_NE(result.error().message.find("overloaded_error: Overloaded"), std::string::npos)
    << result.error().message;
}

TEST(openai_client, a_local_server_needs_no_key_and_may_send_no_usage) {
  auto waits = std::make_shared<scripted::recorded_waits>();
  loopback_server server{[](connection& c) { scripted::openai_reply(c, "hi", "stop", {}, false); }};
  auto config = scripted::config_for(provider_kind::openai, server, waits, /*with_key=*/false);
  auto result = scripted::make_client(config)->chat(scripted::simple_request("qwen2.5-coder:32b"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->text, "hi");
  EXPECT_EQ(result->usage, token_usage{});
  EXPECT_EQ(result->cost_usd, 0.0);
  ASSERT_EQ(result->notes.size(), 1u); // the missing usage; an unpriced local model is expected
  EXPECT_NE(result->notes[0].find("no token usage"), std::string::npos);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].header("authorization"));
  EXPECT_FALSE(requests[0].header("x-api-key"));
}

TEST(openai_client, splits_cached_prompt_tokens_and_prices_them_as_cache_reads) {
  auto waits = std::make_shared<scripted::recorded_waits>();
  loopback_server server{[](connection& c) { scripted::openai_reply(c, "x", "stop", {200, 10, 800, 0}); }};
  auto client = scripted::make_client(scripted::config_for(provider_kind::openai, server, waits));
  auto result = client->chat(scripted::simple_request("gpt-4.1"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->usage, (token_usage{200, 10, 800, 0}));
  EXPECT_NEAR(result->cost_usd, (200 * 2.0 + 10 * 8.0 + 800 * 0.5) * 1e-6, 1e-12);
}

} // namespace
} // namespace warpforge::llm
