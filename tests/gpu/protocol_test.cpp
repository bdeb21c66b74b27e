#include "gpu/runner/protocol.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

TEST(runner_protocol, every_request_kind_round_trips_through_its_name) {
  for (auto kind : all_runner_request_kinds)
    EXPECT_EQ(runner_request_kind_from_string(to_string(kind)), kind) << to_string(kind);
  EXPECT_FALSE(runner_request_kind_from_string("load_cubin"));
}

TEST(runner_protocol, every_reply_status_round_trips_through_its_name) {
  for (auto status : all_runner_reply_statuses)
    EXPECT_EQ(runner_reply_status_from_string(to_string(status)), status) << to_string(status);
  EXPECT_FALSE(runner_reply_status_from_string("OK"));
}

TEST(runner_protocol, a_request_round_trips_with_its_body) {
  runner_request request{42, runner_request_kind::device_query, R"({"a":[1,2],"b":"x"})"};
  auto text = encode(request);
  EXPECT_EQ(text, R"({"protocol":1,"id":42,"kind":"device_query","body":{"a":[1,2],"b":"x"}})");
  auto decoded = decode_request(text);
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, request);
}

TEST(runner_protocol, a_reply_round_trips_for_every_status) {
  for (auto status : all_runner_reply_statuses) {
    runner_reply reply{7, runner_request_kind::shutdown, status, "why \"quoted\"\n", "{}"};
    auto decoded = decode_reply(encode(reply));
    ASSERT_TRUE(decoded) << decoded.error().detail;
    EXPECT_EQ(*decoded, reply);
  }
}

TEST(runner_protocol, an_empty_body_is_sent_as_an_empty_object) {
  runner_request request{1, runner_request_kind::shutdown, ""};
  auto decoded = decode_request(encode(request));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->body_json, "{}");
}

TEST(runner_protocol, the_hello_body_round_trips) {
  runner_hello hello{1234, runner_protocol_version};
  auto decoded = decode_hello_body(encode_body(hello));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, hello);
  EXPECT_FALSE(decode_hello_body(R"({"pid":"x","protocol":1})"));
}

struct malformed_case {
  const char* text;
  const char* expected_in_detail;
};

// A device query says how deep it asks; an old client's {} asks everything, as before.
TEST(runner_protocol, the_device_query_body_round_trips_and_defaults_to_full) {
  for (auto depth : all_device_query_depths) {
    auto decoded = decode_device_query_body(encode_device_query_body(depth));
    ASSERT_TRUE(decoded) << decoded.error().detail;
    EXPECT_EQ(*decoded, depth) << to_string(depth);
  }
  auto empty = decode_device_query_body("{}");
  ASSERT_TRUE(empty) << empty.error().detail;
  EXPECT_EQ(*empty, device_query_depth::full);
  auto unknown = decode_device_query_body(R"({"depth":"shallow"})");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().detail.find("shallow"), std::string::npos) << unknown.error().detail;
  EXPECT_NE(unknown.error().detail.find("depth"), std::string::npos) << unknown.error().detail;
  EXPECT_FALSE(decode_device_query_body(R"({"depth":3})"));
}

TEST(runner_protocol, malformed_requests_are_errors_that_name_the_problem) {
  const malformed_case cases[] = {
    {"", "not JSON"},
    {"{not json", "not JSON"},
    {"[1,2,3]", "not a JSON object"},
    {R"({"id":1,"kind":"shutdown","body":{}})", "request.protocol: missing"},
    {R"({"protocol":2,"id":1,"kind":"shutdown","body":{}})", "request.protocol: version 2"},
    {R"({"protocol":1,"kind":"shutdown","body":{}})", "request.id: missing"},
    {R"({"protocol":1,"id":-3,"kind":"shutdown","body":{}})", "request.id: not an unsigned"},
    {R"({"protocol":1,"id":1,"kind":"launch_missiles","body":{}})", "unknown kind 'launch_missiles'"},
    {R"({"protocol":1,"id":1,"kind":7,"body":{}})", "request.kind: not a string"},
    {R"({"protocol":1,"id":1,"kind":"shutdown"})", "request.body: missing"},
    {R"({"protocol":1,"id":1,"kind":"shutdown","body":[]})", "request.body: not an object"},
  };
  for (const auto& c : cases) {
    auto decoded = decode_request(c.text);
    ASSERT_FALSE(decoded) << c.text;
    EXPECT_NE(decoded.error().detail.find(c.expected_in_detail), std::string::npos)
      << c.text << " -> " << decoded.error().detail;
  }
}

TEST(runner_protocol, malformed_replies_are_errors_that_name_the_problem) {
  const malformed_case cases[] = {
    {"\x01\x02garbage", "not JSON"},
    {R"({"protocol":1,"id":1,"kind":"shutdown","error":"","body":{}})", "reply.status: missing"},
    {R"({"protocol":1,"id":1,"kind":"shutdown","status":"fine","error":"","body":{}})",
     "unknown status 'fine'"},
    {R"({"protocol":1,"id":1,"kind":"shutdown","status":"ok","body":{}})", "reply.error: missing"},
  };
  for (const auto& c : cases) {
    auto decoded = decode_reply(c.text);
    ASSERT_FALSE(decoded) << c.text;
    EXPECT_NE(decoded.error().detail.find(c.expected_in_detail), std::string::npos)
      << c.text << " -> " << decoded.error().detail;
  }
}

TEST(runner_protocol, the_id_of_an_undecodable_request_is_recovered_when_present) {
  EXPECT_EQ(peek_request_id(R"({"id":9,"kind":"nope"})"), 9u);
  EXPECT_EQ(peek_request_id("garbage"), 0u);
  EXPECT_EQ(peek_request_id(R"({"id":"9"})"), 0u);
}
