// The dashboard's server on 127.0.0.1 ephemeral ports, spoken to by Beast's own HTTP and
// WebSocket clients: the page, the snapshot, pushes to open pages, and what it refuses.

#include "feed/dashboard/http_server.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace warpforge::dashboard {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr auto page = "<!doctype html><title>warpforge dashboard</title>";

http_server start_server() {
  auto server = http_server::start({listen_address{"127.0.0.1", 0}, page});
  if (!server)
    throw std::runtime_error("start: " + to_string(server.error()));
  return std::move(*server);
}

/// "127.0.0.1:<port>": the Host a browser sends for the server's URL.
std::string own_host(const http_server& server) {
  return "127.0.0.1:" + std::to_string(server.port());
}

/// A request with the given Host (empty: none) and Origin (empty: none), as any client may send.
http::response<http::string_body> get_as(const http_server& server, const std::string& target,
                                         const std::string& host, const std::string& origin,
                                         bool upgrade = false) {
  net::io_context context;
  beast::tcp_stream stream{context};
  stream.expires_after(10s);
  stream.connect(tcp::endpoint{net::ip::make_address("127.0.0.1"), server.port()});
  http::request<http::string_body> request{http::verb::get, target, 11};
  if (!host.empty())
    request.set(http::field::host, host);
  if (!origin.empty())
    request.set(http::field::origin, origin);
  if (upgrade) {
    request.set(http::field::connection, "Upgrade");
    request.set(http::field::upgrade, "websocket");
    request.set(http::field::sec_websocket_version, "13");
    request.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  }
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.skip(false);
  http::read_header(stream, buffer, parser);
  if (parser.get().result() != http::status::switching_protocols)
    http::read(stream, buffer, parser);
  return parser.release();
}

http::response<http::string_body> get(const http_server& server, const std::string& target,
                                      http::verb verb = http::verb::get) {
  net::io_context context;
  beast::tcp_stream stream{context};
  stream.expires_after(10s);
  stream.connect(tcp::endpoint{net::ip::make_address("127.0.0.1"), server.port()});
  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, own_host(server));
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  return response;
}

/// A page's WebSocket.
struct page_socket {
  net::io_context context;
  websocket::stream<beast::tcp_stream> ws{context};
  beast::flat_buffer buffer;

  explicit page_socket(const http_server& server) {
    beast::get_lowest_layer(ws).expires_after(10s);
    beast::get_lowest_layer(ws).connect(tcp::endpoint{net::ip::make_address("127.0.0.1"), server.port()});
    ws.handshake(own_host(server), "/ws");
  }
  std::string next() {
    beast::get_lowest_layer(ws).expires_after(10s);
    buffer.consume(buffer.size());
    ws.read(buffer);
    return beast::buffers_to_string(buffer.data());
  }
};

/// Waits until the server counts `n` open WebSockets (their accept runs on its thread).
bool wait_for_open(const http_server& server, std::uint64_t n) {
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(5ms))
    if (server.counters().websocket_open >= n)
      return true;
  return false;
}

TEST(ListenAddress, ReadsHostAndPortAndKeepsToLoopbackUnlessAllowed) {
  EXPECT_EQ(parse_listen_address("127.0.0.1:8757", false).value().port, 8757);
  EXPECT_EQ(parse_listen_address("localhost:0", false).value().host, "127.0.0.1");
  EXPECT_EQ(parse_listen_address("[::1]:9000", false).value().host, "::1");
  auto remote = parse_listen_address("0.0.0.0:8757", false);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().code, dashboard_errc::remote_not_allowed);
  EXPECT_TRUE(parse_listen_address("0.0.0.0:8757", true));
  for (auto [text, place] : {std::pair{"8757", "port"}, std::pair{"127.0.0.1:http", "port"},
                             std::pair{"127.0.0.1:70000", "port"}, std::pair{"gpu-node:8757", "host"}}) {
    auto bad = parse_listen_address(text, true);
    ASSERT_FALSE(bad) << text;
    EXPECT_EQ(bad.error().code, dashboard_errc::bad_listen_address) << text;
    EXPECT_EQ(bad.error().place, place) << text;
  }
}

TEST(HttpServer, ServesThePageAndTheLatestSnapshot) {
  auto server = start_server();
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/");
  auto index = get(server, "/");
  EXPECT_EQ(index.result(), http::status::ok);
  EXPECT_EQ(index[http::field::content_type], "text/html; charset=utf-8");
  EXPECT_EQ(index.body(), page);

  EXPECT_EQ(get(server, "/snapshot.json").result(), http::status::service_unavailable) << "none published yet";
  server.publish(R"({"snapshot":1,"last_seq":7})");
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       get(server, "/snapshot.json").result() != http::status::ok && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(5ms);
  auto snapshot = get(server, "/snapshot.json");
  EXPECT_EQ(snapshot.result(), http::status::ok);
  EXPECT_EQ(snapshot[http::field::content_type], "application/json");
  EXPECT_EQ(snapshot.body(), R"({"snapshot":1,"last_seq":7})");
}

TEST(HttpServer, AnUnknownPathIs404AndAnotherMethod405) {
  auto server = start_server();
  EXPECT_EQ(get(server, "/etc/passwd").result(), http::status::not_found);
  auto post = get(server, "/", http::verb::post);
  EXPECT_EQ(post.result(), http::status::method_not_allowed);
  EXPECT_EQ(post[http::field::allow], "GET");
  EXPECT_GE(server.counters().http_requests, 2u);
}

TEST(HttpServer, APageGetsTheLatestSnapshotAtOnceThenEveryPublishedOne) {
  auto server = start_server();
  server.publish("first");
  page_socket early{server};
  EXPECT_EQ(early.next(), "first");
  server.publish("second");
  EXPECT_EQ(early.next(), "second");

  page_socket late{server};
  EXPECT_EQ(late.next(), "second") << "a page opened late is complete at once";
  ASSERT_TRUE(wait_for_open(server, 2));
  server.publish("third");
  EXPECT_EQ(early.next(), "third");
  EXPECT_EQ(late.next(), "third");
  EXPECT_EQ(server.counters().websocket_opened, 2u);
}

TEST(HttpServer, AClosedPageIsForgotten) {
  auto server = start_server();
  {
    page_socket page_ws{server};
    ASSERT_TRUE(wait_for_open(server, 1));
    page_ws.ws.close(websocket::close_code::normal);
  }
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       server.counters().websocket_open > 0 && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server.counters().websocket_open, 0u);
  server.publish("nobody listens"); // must not touch the closed session
  EXPECT_EQ(get(server, "/").result(), http::status::ok);
}

TEST(HttpServer, OnlyRequestsNamingTheDashboardAreAnswered) {
  auto server = start_server();
  server.publish(R"({"snapshot":1,"secret":"/home/user/project"})");
  const auto port = std::to_string(server.port());
  const std::string own_origin = "http://127.0.0.1:" + port;
  // Controls: the page's own requests.
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       get(server, "/snapshot.json").result() != http::status::ok && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(get_as(server, "/snapshot.json", own_host(server), own_origin).result(), http::status::ok);
  EXPECT_EQ(get_as(server, "/", "localhost:" + port, "http://localhost:" + port).result(), http::status::ok);
  EXPECT_EQ(get_as(server, "/ws", own_host(server), own_origin, true).result(), http::status::switching_protocols);
  // Another site's page, a rebound name, another port, no Host: 403, nothing of the snapshot.
  const std::uint64_t refused_before = server.counters().refused;
  struct attempt {
    std::string target, host, origin;
    bool upgrade;
  };
  const attempt attempts[] = {
    {"/snapshot.json", "attacker.example:" + port, "", false},
    {"/snapshot.json", own_host(server), "http://attacker.example", false},
    {"/snapshot.json", "127.0.0.1:1", "", false},
    {"/snapshot.json", "", "", false},
    {"/ws", own_host(server), "http://attacker.example", true},
    {"/ws", "attacker.example:" + port, "http://attacker.example:" + port, true},
    {"/ws", own_host(server), "null", true},
    {"/ws", own_host(server), "https://127.0.0.1:" + port, true},
  };
  for (const auto& a : attempts) {
    auto response = get_as(server, a.target, a.host, a.origin, a.upgrade);
    EXPECT_EQ(response.result(), http::status::forbidden) << a.target << " Host " << a.host << " Origin " << a.origin;
    EXPECT_EQ(response.body().find("secret"), std::string::npos);
  }
  EXPECT_EQ(server.counters().refused - refused_before, std::size(attempts));
}

TEST(HttpServer, APortInUseIsASocketErrorNamingTheStep) {
  auto first = start_server();
  auto second = http_server::start({listen_address{"127.0.0.1", first.port()}, page});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, dashboard_errc::socket_error);
  EXPECT_EQ(second.error().place, "bind");
}

} // namespace
} // namespace warpforge::dashboard
