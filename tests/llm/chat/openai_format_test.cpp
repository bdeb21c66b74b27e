#include "llm/chat/openai_format.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

namespace warpforge::llm {
namespace {

chat_request small_request() {
  chat_request request;
  request.model = "gpt-4.1";
  request.system = {{"stable facts", true}, {"this run", false}};
  request.messages = {{role::user, "write a kernel"}};
  request.max_tokens = 700;
  return request;
}

std::string header(const wire_request& request, std::string_view name) {
  for (const auto& [key, value] : request.headers)
    if (key == name)
      return value;
  return "<absent>";
}

std::string chunk(std::string_view content, std::string_view finish = "null") {
  return std::string{R"({"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14",)"}
       + R"("choices":[{"index":0,"delta":{"content":")" + std::string{content} +
         R"("},"finish_reason":)" + std::string{finish} + "}]}";
}

const std::string usage_chunk =
  R"({"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[],)"
  R"("usage":{"prompt_tokens":1000,"completion_tokens":42,"total_tokens":1042,)"
  R"("prompt_tokens_details":{"cached_tokens":768}}})";

expected<exchange_reply, stream_problem> decode(const std::vector<std::string>& datas) {
  auto decoder = openai_format{}.decoder();
  for (const auto& data : datas)
    if (auto problem = decoder->on_event("", data))
      return unexpected(*problem);
  return decoder->finish();
}

TEST(openai_format, joins_system_blocks_into_one_system_message_and_asks_for_usage) {
  auto wire = openai_format{}.encode(small_request(), "sk-test");
  ASSERT_TRUE(wire) << wire.error();
  EXPECT_EQ(wire->path, "/chat/completions");
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(wire->body);
  simdjson::dom::array messages = body["messages"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(std::string_view{messages.at(0)["role"]}, "system");
  EXPECT_EQ(std::string_view{messages.at(0)["content"]}, "stable facts\n\nthis run");
  EXPECT_EQ(std::string_view{messages.at(1)["role"]}, "user");
  EXPECT_EQ(std::string_view{messages.at(1)["content"]}, "write a kernel");
  EXPECT_TRUE(bool{body["stream"]});
  EXPECT_TRUE(bool{body["stream_options"]["include_usage"]});
  EXPECT_EQ(int64_t{body["max_tokens"]}, 700);
  EXPECT_EQ(body["max_completion_tokens"].error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(body["temperature"].error(), simdjson::NO_SUCH_FIELD);
}

TEST(openai_format, names_the_token_limit_max_completion_tokens_for_openai_itself) {
  auto wire = openai_format{token_limit_field::max_completion_tokens}.encode(small_request(), "k");
  ASSERT_TRUE(wire);
  simdjson::dom::parser parser;
  simdjson::dom::element body = parser.parse(wire->body);
  EXPECT_EQ(int64_t{body["max_completion_tokens"]}, 700);
  EXPECT_EQ(body["max_tokens"].error(), simdjson::NO_SUCH_FIELD);
}

TEST(openai_format, sends_a_bearer_key_only_when_one_is_set) {
  auto with_key = openai_format{}.encode(small_request(), "sk-test");
  ASSERT_TRUE(with_key);
  EXPECT_EQ(header(*with_key, "authorization"), "Bearer sk-test");
  auto local = openai_format{}.encode(small_request(), "");
  ASSERT_TRUE(local);
  EXPECT_EQ(header(*local, "authorization"), "<absent>");
  EXPECT_EQ(header(*local, "content-type"), "application/json");
}

TEST(openai_format, decodes_a_recorded_stream_splitting_cached_prompt_tokens) {
  auto reply = decode({chunk("Hel"), chunk("lo"), chunk("", R"("stop")"), usage_chunk, "[DONE]"});
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->text, "Hello");
  EXPECT_EQ(reply->stop, stop_reason::end);
  EXPECT_EQ(reply->usage, (token_usage{232, 42, 768, 0}));
  EXPECT_TRUE(reply->usage_reported);
  EXPECT_EQ(reply->model, "gpt-4.1-2025-04-14");
  EXPECT_EQ(reply->id, "chatcmpl-1");
}

TEST(openai_format, length_is_max_tokens_and_content_filter_a_refusal) {
  EXPECT_EQ(decode({chunk("a", R"("length")"), "[DONE]"})->stop, stop_reason::max_tokens);
  EXPECT_EQ(decode({chunk("a", R"("content_filter")"), "[DONE]"})->stop, stop_reason::refusal);
  EXPECT_EQ(decode({chunk("a", R"("tool_calls")"), "[DONE]"})->stop, stop_reason::other);
}

TEST(openai_format, a_local_server_without_usage_leaves_usage_unreported) {
  const std::string null_content =
    R"({"id":"x","model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]})";
  auto reply = decode({null_content, chunk("ok", R"("stop")"), "[DONE]"});
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->text, "ok");
  EXPECT_FALSE(reply->usage_reported);
  EXPECT_EQ(reply->usage, token_usage{});
}

TEST(openai_format, a_stream_cut_before_finish_is_a_retryable_drop) {
  auto reply = decode({chunk("Hel")});
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, chat_error_kind::network);
  EXPECT_TRUE(reply.error().retryable);
}

TEST(openai_format, a_finish_reason_without_done_is_a_whole_reply) {
  auto reply = decode({chunk("all", R"("stop")"), usage_chunk});
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->text, "all");
}

TEST(openai_format, garbage_and_missing_fields_are_malformed_naming_the_chunk) {
  auto not_json = decode({chunk("a"), "<html>oops</html>"});
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().kind, chat_error_kind::malformed_reply);
  EXPECT_NE(not_json.error().message.find("chunk 2"), std::string::npos) << not_json.error().message;
  EXPECT_NE(not_json.error().message.find("<html>oops"), std::string::npos);

  auto no_choices = decode({R"({"id":"x","object":"chat.completion.chunk"})"});
  ASSERT_FALSE(no_choices);
  EXPECT_NE(no_choices.error().message.find("neither choices nor usage"), std::string::npos);

  auto bad_content = decode({R"({"choices":[{"delta":{"content":7}}]})"});
  ASSERT_FALSE(bad_content);
  EXPECT_NE(bad_content.error().message.find("/choices/0/delta/content is an integer"),
            std::string::npos)
    << bad_content.error().message;

  auto bad_usage = decode({R"({"choices":[],"usage":{"prompt_tokens":5}})"});
  ASSERT_FALSE(bad_usage);
  EXPECT_NE(bad_usage.error().message.find("missing /usage/completion_tokens"), std::string::npos);
}

TEST(openai_format, an_error_chunk_is_a_stream_problem_with_the_servers_message) {
  auto reply = decode({R"({"error":{"message":"The server is overloaded","type":"server_error"}})"});
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, chat_error_kind::server_error);
  EXPECT_TRUE(reply.error().retryable);
  EXPECT_NE(reply.error().message.find("The server is overloaded"), std::string::npos);
}

TEST(openai_format, continues_with_the_partial_reply_and_a_request_to_go_on) {
  auto next = openai_format{}.continuation(small_request(), "partial code  ");
  ASSERT_EQ(next.request.messages.size(), 3u);
  EXPECT_EQ(next.request.messages[1].who, role::assistant);
  EXPECT_EQ(next.request.messages[1].text, "partial code  ");
  EXPECT_EQ(next.request.messages[2].who, role::user);
  EXPECT_EQ(next.request.messages[2].text, openai_continue_prompt);
  EXPECT_EQ(next.keep, std::string_view{"partial code  "}.size());
}

TEST(provider_error_body, reads_each_servers_error_shape) {
  EXPECT_EQ(provider_error_message(
              R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"),
            "invalid x-api-key");
  EXPECT_EQ(provider_error_type(
              R"({"type":"error","error":{"type":"authentication_error","message":"m"}})"),
            "authentication_error");
  EXPECT_EQ(provider_error_message(R"({"error":{"message":"Incorrect API key","code":"invalid_api_key"}})"),
            "Incorrect API key");
  EXPECT_EQ(provider_error_message(R"({"error":"model 'x' not found"})"), "model 'x' not found");
  EXPECT_EQ(provider_error_message(R"({"object":"error","message":"too long","type":"BadRequestError"})"),
            "too long");
  EXPECT_FALSE(provider_error_message("<html><title>502 Bad Gateway</title></html>"));
}

} // namespace
} // namespace warpforge::llm
