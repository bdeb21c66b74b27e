#include "gpu/runtime/runner_server.hpp"

#include "gpu/device_report.hpp"
#include "gpu/runner/protocol.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace warpforge::gpu;

namespace {
runner_reply answer(std::string_view request_text, bool expect_stop = false) {
  auto handled = handle_message(request_text);
  EXPECT_EQ(handled.stop, expect_stop) << request_text;
  auto reply = decode_reply(handled.reply);
  EXPECT_TRUE(reply) << handled.reply;
  return reply ? *reply : runner_reply{};
}
} // namespace

TEST(runner_server, garbage_gets_a_bad_request_reply_not_a_crash) {
  auto reply = answer("\xff\xfe not json at all");
  EXPECT_EQ(reply.status, runner_reply_status::bad_request);
  EXPECT_EQ(reply.id, 0u);
  EXPECT_NE(reply.error.find("not JSON"), std::string::npos) << reply.error;
}

TEST(runner_server, an_unknown_kind_is_rejected_with_the_request_id) {
  auto reply = answer(R"({"protocol":1,"id":5,"kind":"load_cubin","body":{}})");
  EXPECT_EQ(reply.status, runner_reply_status::bad_request);
  EXPECT_EQ(reply.id, 5u);
  EXPECT_NE(reply.error.find("load_cubin"), std::string::npos) << reply.error;
}

TEST(runner_server, a_hello_request_is_answered_with_the_pid) {
  auto reply = answer(encode(runner_request{3, runner_request_kind::hello, "{}"}));
  EXPECT_EQ(reply.status, runner_reply_status::ok);
  auto hello = decode_hello_body(reply.body_json);
  ASSERT_TRUE(hello) << hello.error().detail;
  EXPECT_EQ(hello->pid, ::getpid());
}

TEST(runner_server, shutdown_is_acknowledged_then_stops) {
  auto reply = answer(encode(runner_request{4, runner_request_kind::shutdown, "{}"}), true);
  EXPECT_EQ(reply.status, runner_reply_status::ok);
  EXPECT_EQ(reply.id, 4u);
}

TEST(runner_server, a_device_query_of_an_unknown_depth_is_rejected_with_the_request_id) {
  auto reply = answer(encode(runner_request{7, runner_request_kind::device_query, R"({"depth":"shallow"})"}));
  EXPECT_EQ(reply.status, runner_reply_status::bad_request);
  EXPECT_EQ(reply.id, 7u);
  EXPECT_NE(reply.error.find("shallow"), std::string::npos) << reply.error;
}

TEST(runner_server, a_device_query_reply_carries_a_readable_host_report) {
  auto reply = answer(encode(runner_request{6, runner_request_kind::device_query, "{}"}));
  EXPECT_EQ(reply.status, runner_reply_status::ok);
  auto report = host_report_from_json(reply.body_json);
  ASSERT_TRUE(report) << report.error().detail;
  EXPECT_GE(report->runtime_version, 13000);
}
