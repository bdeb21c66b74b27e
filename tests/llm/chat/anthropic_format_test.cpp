#include "llm/chat/anthropic_format.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <utility>
#include <vector>

namespace warpforge::llm {
namespace {

using event_list = std::vector<std::pair<std::string, std::string>>;

chat_request two_block_request() {
  chat_request request;
  request.model = "claude-sonnet-4-5";
  request.system = {{"stable facts", true}, {"this run", false}};
  request.messages = {{role::user, "write a kernel"}};
  request.max_tokens = 1000;
  request.temperature = 0.5;
  return request;
}

std::string header(const wire_request& request, std::string_view name) {
  for (const auto& [key, value] : request.headers)
    if (key == name)
      return value;
  return "<absent>";
}

// A stream in the documented shape: start, a text block in two deltas, a ping, the stop.
event_list recorded_stream(std::string_view stop = "end_turn") {
  return {
    {"message_start",
     R"({"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant",)"
     R"("model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,)"
     R"("usage":{"input_tokens":25,"output_tokens":1,"cache_creation_input_tokens":1200,)"
     R"("cache_read_input_tokens":3400}}})"},
    {"content_block_start",
     R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"},
    {"ping", R"({"type": "ping"})"},
    {"content_block_delta",
     R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}})"},
    {"content_block_delta",
     R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world"}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
    {"message_delta",
     std::string{R"({"type":"message_delta","delta":{"stop_reason":")"} + std::string{stop} +
       R"(","stop_sequence":null},"usage":{"output_tokens":15}})"},
    {"message_stop", R"({"type":"message_stop"})"},
  };
}

expected<exchange_reply, stream_problem> decode(const event_list& events) {
  auto decoder = anthropic_format{}.decoder();
  for (const auto& [name, data] : events)
    if (auto problem = decoder->on_event(name, data))
      return unexpected(*problem);
  return decoder->finish();
}

TEST(anthropic_format, encodes_system_blocks_with_cache_control_only_where_marked) {
  auto wire = anthropic_format{}.encode(two_block_request(), "sk-test");
  ASSERT_TRUE(wire) << wire.error();
  EXPECT_EQ(wire->path, "/v1/messages");
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(wire->body);
  EXPECT_EQ(std::string_view{body["model"]}, "claude-sonnet-4-5");
  EXPECT_EQ(int64_t{body["max_tokens"]}, 1000);
  EXPECT_EQ(double{body["temperature"]}, 0.5);
  EXPECT_TRUE(bool{body["stream"]});
  simdjson::dom::array system = body["system"];
  ASSERT_EQ(system.size(), 2u);
  EXPECT_EQ(std::string_view{system.at(0)["type"]}, "text");
  EXPECT_EQ(std::string_view{system.at(0)["text"]}, "stable facts");
  EXPECT_EQ(std::string_view{system.at(0)["cache_control"]["type"]}, "ephemeral");
  EXPECT_EQ(system.at(1)["cache_control"].error(), simdjson::NO_SUCH_FIELD);
  simdjson::dom::array messages = body["messages"];
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(std::string_view{messages.at(0)["role"]}, "user");
  EXPECT_EQ(std::string_view{messages.at(0)["content"]}, "write a kernel");
}

TEST(anthropic_format, sends_the_key_and_version_headers_and_no_key_header_without_a_key) {
  auto with_key = anthropic_format{}.encode(two_block_request(), "sk-test");
  ASSERT_TRUE(with_key);
  EXPECT_EQ(header(*with_key, "x-api-key"), "sk-test");
  EXPECT_EQ(header(*with_key, "anthropic-version"), "2023-06-01");
  EXPECT_EQ(header(*with_key, "content-type"), "application/json");
  auto without = anthropic_format{}.encode(two_block_request(), "");
  ASSERT_TRUE(without);
  EXPECT_EQ(header(*without, "x-api-key"), "<absent>");
  EXPECT_EQ(header(*without, "authorization"), "<absent>");
}

TEST(anthropic_format, leaves_out_system_and_temperature_when_not_given) {
  chat_request request = two_block_request();
  request.system.clear();
  request.temperature.reset();
  auto wire = anthropic_format{}.encode(request, "");
  ASSERT_TRUE(wire);
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(wire->body);
  EXPECT_EQ(body["system"].error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(body["temperature"].error(), simdjson::NO_SUCH_FIELD);
}

TEST(anthropic_format, refuses_more_than_four_cache_breakpoints_and_an_empty_conversation) {
  chat_request request = two_block_request();
  request.system.assign(5, text_block{"part", true});
  auto five = anthropic_format{}.encode(request, "");
  ASSERT_FALSE(five);
  EXPECT_NE(five.error().find("at most 4"), std::string::npos) << five.error();
  request.system.clear();
  request.messages.clear();
  auto empty = anthropic_format{}.encode(request, "");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("no messages"), std::string::npos) << empty.error();
}

TEST(anthropic_format, decodes_a_recorded_stream_into_text_usage_and_stop) {
  auto reply = decode(recorded_stream());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->text, "Hello, world");
  EXPECT_EQ(reply->stop, stop_reason::end);
  EXPECT_EQ(reply->usage, (token_usage{25, 15, 3400, 1200}));
  EXPECT_TRUE(reply->usage_reported);
  EXPECT_EQ(reply->model, "claude-sonnet-4-5-20250929");
  EXPECT_EQ(reply->id, "msg_01");
}

TEST(anthropic_format, maps_each_documented_stop_reason) {
  EXPECT_EQ(decode(recorded_stream("max_tokens"))->stop, stop_reason::max_tokens);
  EXPECT_EQ(decode(recorded_stream("stop_sequence"))->stop, stop_reason::stop_sequence);
  EXPECT_EQ(decode(recorded_stream("refusal"))->stop, stop_reason::refusal);
  EXPECT_EQ(decode(recorded_stream("tool_use"))->stop, stop_reason::other);
}

TEST(anthropic_format, skips_thinking_blocks_and_unknown_events) {
  event_list events = recorded_stream();
  events.insert(events.begin() + 1,
                {{"content_block_start",
                  R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"},
                 {"content_block_delta",
                  R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}})"},
                 {"brand_new_event", R"({"type":"brand_new_event","x":1})"}});
  auto reply = decode(events);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->text, "Hello, world");
}

TEST(anthropic_format, an_overloaded_error_event_is_a_retryable_overload) {
  event_list events = recorded_stream();
  events.resize(4);
  events.push_back({"error",
                    R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"});
  auto reply = decode(events);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, chat_error_kind::overloaded);
  EXPECT_TRUE(reply.error().retryable);
  EXPECT_NE(reply.error().message.find("Overloaded"), std::string::npos);
}

TEST(anthropic_format, an_invalid_request_error_event_is_not_retried) {
  auto reply = decode({{"error",
                        R"({"type":"error","error":{"type":"invalid_request_error","message":"bad"}})"}});
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, chat_error_kind::bad_request);
  EXPECT_FALSE(reply.error().retryable);
}

TEST(anthropic_format, a_stream_cut_before_message_stop_is_a_retryable_drop_keeping_its_usage) {
  event_list events = recorded_stream();
  events.resize(4);
  auto decoder = anthropic_format{}.decoder();
  for (const auto& [name, data] : events)
    ASSERT_FALSE(decoder->on_event(name, data));
  EXPECT_EQ(decoder->usage_so_far().input, 25);
  auto reply = decoder->finish();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, chat_error_kind::network);
  EXPECT_TRUE(reply.error().retryable);
  EXPECT_NE(reply.error().message.find("message_stop"), std::string::npos);
}

TEST(anthropic_format, garbage_is_a_malformed_reply_naming_the_event) {
  event_list events = recorded_stream();
  events[3].second = "{not json";
  auto reply = decode(events);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, chat_error_kind::malformed_reply);
  EXPECT_FALSE(reply.error().retryable);
  EXPECT_NE(reply.error().message.find("event 4 (content_block_delta)"), std::string::npos)
    << reply.error().message;
  EXPECT_NE(reply.error().message.find("{not json"), std::string::npos);
}

TEST(anthropic_format, a_delta_without_its_text_is_malformed_naming_the_field) {
  event_list events = recorded_stream();
  events[3].second = R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}})";
  auto reply = decode(events);
  ASSERT_FALSE(reply);
  EXPECT_NE(reply.error().message.find("missing /delta/text"), std::string::npos)
    << reply.error().message;
  events = recorded_stream();
  events[0].second = R"({"type":"message_start","message":{"id":"m","usage":{"input_tokens":"many"}}})";
  reply = decode(events);
  ASSERT_FALSE(reply);
  EXPECT_NE(reply.error().message.find("/message/usage/input_tokens is a string"),
            std::string::npos)
    << reply.error().message;
}

TEST(anthropic_format, continues_with_the_partial_reply_as_a_trimmed_assistant_turn) {
  const chat_request original = two_block_request();
  auto next = anthropic_format{}.continuation(original, "__global__ void k() {\n  ");
  ASSERT_EQ(next.request.messages.size(), 2u);
  EXPECT_EQ(next.request.messages[1].who, role::assistant);
  EXPECT_EQ(next.request.messages[1].text, "__global__ void k() {");
  EXPECT_EQ(next.keep, std::string_view{"__global__ void k() {"}.size());
  EXPECT_EQ(next.request.system.size(), original.system.size());

  chat_request prefilled = original;
  prefilled.messages.push_back({role::assistant, "{\"variants\":"});
  auto merged = anthropic_format{}.continuation(prefilled, "[1, 2");
  ASSERT_EQ(merged.request.messages.size(), 2u);
  EXPECT_EQ(merged.request.messages[1].text, "{\"variants\":[1, 2");
}

} // namespace
} // namespace warpforge::llm
