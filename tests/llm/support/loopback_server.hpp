#pragma once
// A scripted HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the llm tests: each request is
// recorded, then handed to the test's handler with a `connection` through which the handler
// answers — a whole response, a chunked or SSE stream written piece by piece with pauses, raw
// bytes, or a connection closed or reset mid-stream. With a certificate it speaks TLS; as a proxy
// stub it records CONNECT and absolute-form requests and can tunnel to another loopback server.
//
//   loopback_server server{in_order({
//       [](connection& c) { c.respond(429, "{}", {{"Retry-After", "1"}}); },
//       [](connection& c) { c.start_sse(); c.send_event("message_stop", "{}"); c.end_chunked(); }})};
//   ... send to server.base_url() ...;  server.requests()[1].body ...
//
// One thread per connection, blocking writes; one request per connection (every answer says
// Connection: close). The destructor wakes sleeping handlers, shuts every socket and joins all.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm::testing {

struct recorded_header {
  std::string name;
  std::string value;
};

struct recorded_request {
  std::size_t index = 0;  // 0-based, in the order requests arrived at this server
  std::string method;     // "POST", "GET", "CONNECT"
  std::string target;     // "/v1/messages"; at a proxy "http://host:port/path" or, for CONNECT, "host:port"
  std::vector<recorded_header> headers;
  std::string body;
  /// The first header of that name (case-insensitive).
  std::optional<std::string> header(std::string_view name) const;
};

/// The server's side of one request. Every write returns false once the client is gone (then
/// later writes do nothing), so a handler can carry on without checking.
class connection {
public:
  struct impl;
  explicit connection(std::unique_ptr<impl> state);
  ~connection();

  const recorded_request& request() const;
  std::size_t index() const { return request().index; }

  /// A whole response with Content-Length and the given extra headers.
  bool respond(unsigned status, std::string_view body, const std::vector<recorded_header>& headers = {},
               std::string_view content_type = "application/json");
  /// A chunked response's head; then send_chunk() any number of times and end_chunked().
  bool start_chunked(unsigned status, std::string_view content_type, const std::vector<recorded_header>& headers = {});
  bool send_chunk(std::string_view bytes);
  bool end_chunked();
  /// start_chunked with Content-Type: text/event-stream.
  bool start_sse(unsigned status = 200, const std::vector<recorded_header>& headers = {});
  /// One event as one chunk: "event: <event>\n" (when not empty), a "data: " line per line of data, "\n".
  bool send_event(std::string_view event, std::string_view data);
  /// Bytes as they are, e.g. a malformed head or a chunk cut short.
  bool write_raw(std::string_view bytes);
  /// Waits, returning early when the server stops.
  void sleep(std::chrono::milliseconds duration);
  /// Closes the connection (FIN): a client mid-body sees it end early.
  void close();
  /// Resets the connection (RST, SO_LINGER 0). The client may lose bytes it had not read yet.
  void reset();
  /// Proxy stub: answers "200 Connection established", then relays bytes both ways between the
  /// client and 127.0.0.1:port until either side closes. False when port cannot be reached.
  bool tunnel_to(std::uint16_t port);
  /// Whether the client is still there as far as this side knows.
  bool open() const;

private:
  std::unique_ptr<impl> state_;
};

using handler = std::function<void(connection&)>;

/// A handler that answers request i with steps[i]; requests past the end get a 500 (and are
/// listed in handler_errors), so a test that sends too many sees it. A handler that throws before
/// writing anything also gets its request a 500, after the error is listed.
handler in_order(std::vector<handler> steps);

struct loopback_options {
  std::string certificate_pem; // with private_key_pem: speak TLS with this certificate
  std::string private_key_pem;
};

class loopback_server {
public:
  explicit loopback_server(handler on_request, loopback_options options = {});
  ~loopback_server();
  loopback_server(const loopback_server&) = delete;
  loopback_server& operator=(const loopback_server&) = delete;

  std::uint16_t port() const;
  /// "http://127.0.0.1:<port>" (https:// with a certificate).
  std::string base_url() const;
  /// Every request so far, in arrival order.
  std::vector<recorded_request> requests() const;
  std::size_t request_count() const;
  /// The most requests being answered at the same moment (request read → handler returned).
  std::size_t peak_in_flight() const;
  /// What went wrong on the server's side: handler exceptions, requests past an in_order script.
  std::vector<std::string> handler_errors() const;

  struct state;

private:
  std::unique_ptr<state> state_;
};

} // namespace warpforge::llm::testing
