// send() against the loopback server over real sockets on 127.0.0.1: whole, chunked and streamed
// bodies, each deadline, a connection dropped or refused, garbage for an answer, many callers at once.

#include "llm/http/sse.hpp"
#include "llm/http/transport.hpp"
#include "tests/llm/http/exchange.hpp"
#include "tests/llm/support/loopback_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace warpforge::llm::http {
namespace {

using testing::connection;
using testing::in_order;
using testing::loopback_server;
using namespace std::chrono_literals;

// How long a scripted server sleeps to outlast a deadline; it wakes early when the test ends.
constexpr auto much_longer = std::chrono::milliseconds{5000};

TEST(Send, DeliversAWholeResponseAndRecordsTheRequestAsSent) {
  loopback_server server{[](connection& c) {
    c.respond(200, R"({"id":"msg_1"})", {{"X-Request-Id", "req_42"}});
  }};
  auto r = short_request(server.base_url(), "/v1/messages");
  r.headers.push_back({"x-api-key", "test-key"});
  const auto got = send_collecting(r);
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.result->status, 200u);
  EXPECT_EQ(got.result->find("x-request-id"), "req_42") << "header names compare case-insensitively";
  EXPECT_FALSE(got.result->find("retry-after"));
  EXPECT_EQ(got.body(), R"({"id":"msg_1"})");
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/v1/messages");
  EXPECT_EQ(seen[0].header("Host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(seen[0].header("Content-Type"), "application/json");
  EXPECT_EQ(seen[0].header("X-Api-Key"), "test-key");
  EXPECT_EQ(seen[0].header("Content-Length"), std::to_string(r.body.size()));
  EXPECT_EQ(seen[0].body, r.body);
}

TEST(Send, HandsOnAnErrorStatusWithItsBodyAsAnAnswerNotAFailure) {
  loopback_server server{[](connection& c) {
    c.respond(429, R"({"type":"error","error":{"type":"rate_limit_error"}})", {{"Retry-After", "7"}});
  }};
  const auto got = send_collecting(short_request(server.base_url(), "/v1/messages"));
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.result->status, 429u);
  EXPECT_EQ(got.result->find("Retry-After"), "7");
  EXPECT_NE(got.body().find("rate_limit_error"), std::string::npos);
}

TEST(Send, DeChunksAChunkedBody) {
  loopback_server server{[](connection& c) {
    c.start_chunked(200, "application/json");
    for (const char* piece : {"{\"a\":", "[1,2,", "3]}"})
      c.send_chunk(piece);
    c.end_chunked();
  }};
  const auto got = send_collecting(short_request(server.base_url(), "/"));
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.body(), R"({"a":[1,2,3]})");
  EXPECT_EQ(got.result->find("transfer-encoding"), "chunked");
}

TEST(Send, BringsAWholeMegabyteIntact) {
  std::string big(1 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>('a' + i % 26);
  loopback_server server{[&](connection& c) { c.respond(200, big, {}, "text/plain"); }};
  const auto got = send_collecting(short_request(server.base_url(), "/"));
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.body(), big);
  EXPECT_GT(got.pieces.size(), 1u) << "a large body arrives in several pieces";
}

/// Counts the events the client has parsed, so the server can wait for each before the next.
struct event_counter {
  std::mutex mutex;
  std::condition_variable changed;
  int seen = 0;
  void add() {
    std::lock_guard lock{mutex};
    ++seen;
    changed.notify_all();
  }
  bool wait_for(int n) {
    std::unique_lock lock{mutex};
    return changed.wait_for(lock, 2s, [&] { return seen >= n; });
  }
};

TEST(Send, StreamsAnSseBodyEventByEventAsItArrives) {
  event_counter counter;
  std::atomic<int> waits_met{0};
  loopback_server server{[&](connection& c) {
    c.start_sse();
    for (int i = 1; i <= 3; ++i) {
      c.send_event("content_block_delta", "{\"n\":" + std::to_string(i) + "}");
      if (counter.wait_for(i)) // only a client that streams has parsed event i before event i+1 is sent
        ++waits_met;
    }
    c.send_event("message_stop", "{}");
    c.end_chunked();
  }};
  sse_parser parser;
  std::vector<sse_event> events;
  const auto got = send_collecting(short_request(server.base_url(), "/v1/messages"), [&](std::string_view piece) {
    parser.feed(piece, [&](const sse_event& e) {
      events.push_back(e);
      counter.add();
    });
  });
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.result->find("content-type"), "text/event-stream");
  EXPECT_EQ(waits_met, 3);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[1].data, "{\"n\":2}");
  EXPECT_EQ(events[3].event, "message_stop");
}

TEST(Send, TimesOutWaitingForTheFirstByte) {
  loopback_server server{[](connection& c) {
    c.sleep(much_longer);
    c.respond(200, "{}");
  }};
  auto r = short_request(server.base_url(), "/v1/messages");
  r.limits.first_byte = 150ms;
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::timeout_first_byte) << got.message();
  EXPECT_FALSE(got.head_seen);
  EXPECT_NE(got.message().find("150 ms"), std::string::npos) << got.message();
  EXPECT_NE(got.message().find("127.0.0.1:" + std::to_string(server.port())), std::string::npos) << got.message();
}

TEST(Send, TimesOutWhenTheStreamStallsMidway) {
  loopback_server server{[](connection& c) {
    c.start_sse();
    c.send_event("message_start", "{}");
    c.sleep(much_longer);
    c.end_chunked();
  }};
  auto r = short_request(server.base_url(), "/v1/messages");
  r.limits.idle = 150ms;
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::timeout_idle) << got.message();
  EXPECT_TRUE(got.head_seen);
  EXPECT_EQ(got.body(), "event: message_start\ndata: {}\n\n");
}

TEST(Send, StopsAtTheTotalDeadlineEvenWhileBytesKeepComing) {
  loopback_server server{[](connection& c) {
    c.start_sse();
    for (int i = 0; i < 200 && c.send_event("ping", "{}"); ++i)
      c.sleep(20ms);
  }};
  auto r = short_request(server.base_url(), "/v1/messages");
  r.limits.idle = 500ms;
  r.limits.total = 300ms;
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::timeout_total) << got.message();
  EXPECT_GT(got.pieces.size(), 2u) << "events flowed until the deadline";
}

TEST(Send, ReportsAConnectionClosedMidStreamAsDroppedAfterTheHead) {
  loopback_server server{[](connection& c) {
    c.start_sse();
    c.send_event("message_start", "{}");
    c.close();
  }};
  const auto got = send_collecting(short_request(server.base_url(), "/v1/messages"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::dropped) << got.message();
  EXPECT_TRUE(got.head_seen);
  EXPECT_EQ(got.head_status, 200u);
  EXPECT_EQ(got.body(), "event: message_start\ndata: {}\n\n");
}

TEST(Send, ReportsAResetConnectionAsDropped) {
  loopback_server server{[](connection& c) {
    c.start_sse();
    c.send_event("message_start", "{}");
    c.sleep(50ms);
    c.reset();
  }};
  const auto got = send_collecting(short_request(server.base_url(), "/v1/messages"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::dropped) << got.message();
}

TEST(Send, ReportsAContentLengthCutShortAsDropped) {
  loopback_server server{[](connection& c) {
    c.write_raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":");
    c.close();
  }};
  const auto got = send_collecting(short_request(server.base_url(), "/"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::dropped) << got.message();
  EXPECT_EQ(got.body(), "{\"partial\":");
}

TEST(Send, ReportsAConnectionClosedBeforeAnyAnswerAsDroppedWithoutAHead) {
  loopback_server server{[](connection& c) { c.close(); }};
  const auto got = send_collecting(short_request(server.base_url(), "/"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::dropped) << got.message();
  EXPECT_FALSE(got.head_seen);
  EXPECT_NE(got.message().find("response head"), std::string::npos) << got.message();
}

TEST(Send, CallsAnAnswerThatIsNotHttpAProtocolFailure) {
  loopback_server server{[](connection& c) { c.write_raw("SSH-2.0-OpenSSH_9.2\r\n\r\n"); }};
  const auto got = send_collecting(short_request(server.base_url(), "/"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::protocol) << got.message();
}

/// A port on 127.0.0.1 that nothing listens on: bound once to learn a free number, then closed.
std::uint16_t closed_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor{io, {boost::asio::ip::make_address_v4("127.0.0.1"), 0}};
  return acceptor.local_endpoint().port();
}

TEST(Send, ReportsARefusedConnectionAsConnectNamingTheHost) {
  const auto port = closed_port();
  const auto got = send_collecting(short_request("http://127.0.0.1:" + std::to_string(port), "/"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::connect) << got.message();
  EXPECT_NE(got.message().find("connecting to 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << got.message();
}

TEST(Send, TimesOutConnectingWhenTheTlsHandshakeIsNeverAnswered) {
  // A listening socket that never accepts: the kernel completes the TCP handshake, nobody speaks TLS.
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor silent{io, {boost::asio::ip::make_address_v4("127.0.0.1"), 0}};
  auto r = short_request("https://127.0.0.1:" + std::to_string(silent.local_endpoint().port()), "/");
  r.limits.connect = 150ms;
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::timeout_connect) << got.message();
  EXPECT_NE(got.message().find("TLS handshake"), std::string::npos) << got.message();
}

TEST(Send, RefusesARequestThatCannotBeSentWithoutConnecting) {
  loopback_server server{[](connection& c) { c.respond(200, "{}"); }};
  auto r = short_request(server.base_url(), "/");
  r.headers.push_back({"x-api-key", "secret-value\r\nX-Injected: 1"});
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::bad_url) << got.message();
  EXPECT_NE(got.message().find("x-api-key"), std::string::npos);
  EXPECT_EQ(got.message().find("secret-value"), std::string::npos) << "a header's value is never repeated";
  r.headers.pop_back();
  r.target = url{};
  EXPECT_EQ(send_collecting(r).kind(), failure_kind::bad_url);
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(Send, ServesManyCallersAtOnceEachWithItsOwnAnswer) {
  loopback_server server{[](connection& c) {
    c.sleep(20ms);
    c.respond(200, "echo " + c.request().body, {}, "text/plain");
  }};
  constexpr int callers = 8;
  std::vector<std::string> bodies(callers);
  std::vector<std::thread> threads;
  for (int i = 0; i < callers; ++i)
    threads.emplace_back([&, i] {
      auto r = short_request(server.base_url(), "/");
      r.body = std::to_string(i);
      const auto got = send_collecting(r);
      bodies[i] = got.result ? got.body() : got.message();
    });
  for (auto& t : threads)
    t.join();
  for (int i = 0; i < callers; ++i)
    EXPECT_EQ(bodies[i], "echo " + std::to_string(i));
  EXPECT_EQ(server.request_count(), static_cast<std::size_t>(callers));
  EXPECT_GT(server.peak_in_flight(), 1u) << "the calls overlapped";
}

TEST(LoopbackServer, AnswersRequestsPastItsScriptWith500AndSaysSo) {
  loopback_server server{in_order({[](connection& c) { c.respond(200, "first"); }})};
  const auto first = send_collecting(short_request(server.base_url(), "/"));
  const auto second = send_collecting(short_request(server.base_url(), "/"));
  ASSERT_TRUE(first.result && second.result);
  EXPECT_EQ(first.body(), "first");
  EXPECT_EQ(second.result->status, 500u);
  const auto errors = server.handler_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("past the script"), std::string::npos) << errors[0];
}

TEST(Send, SpeaksGetWithoutABody) {
  loopback_server server{[](connection& c) { c.respond(200, R"({"data":[]})"); }};
  auto r = short_request(server.base_url(), "/v1/models");
  r.method = "GET";
  r.body.clear();
  const auto got = send_collecting(r);
  ASSERT_TRUE(got.result) << got.message();
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_FALSE(seen[0].header("Content-Length"));
  EXPECT_EQ(seen[0].header("User-Agent"), "warpforge");
}

} // namespace
} // namespace warpforge::llm::http
