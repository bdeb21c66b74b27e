#pragma once
// Internal to llm/http: one connection's steps, each under its own deadline and the call's total
// one, each failure naming its step and host. transport.cpp strings them together:
//   open (resolve → TCP connect → proxy CONNECT → TLS handshake) → write → read_head → read_body…
// Async Beast operations driven by this call's own io_context, so a call blocks only its thread.

#include "foundation/expected/expected.hpp"
#include "llm/http/failure.hpp"
#include "llm/http/timeouts.hpp"
#include "llm/http/transport.hpp"
#include "llm/http/url.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <chrono>
#include <optional>
#include <span>

namespace warpforge::llm::http {

class connection {
public:
  using clock = std::chrono::steady_clock;
  using outgoing = boost::beast::http::request<boost::beast::http::string_body>;

  /// Starts the call's total clock.
  explicit connection(const timeouts& limits);

  /// Resolves, connects (to the proxy when there is one), tunnels and handshakes as needed.
  expected<void, failure> open(const url& target, const std::optional<url>& proxy, const std::string& ca_file);
  /// Writes the whole request.
  expected<void, failure> write(outgoing& message);
  /// Reads the status line and headers.
  expected<response_head, failure> read_head(bool head_request);
  /// Reads the next piece of the body into `piece`; 0 bytes is possible (a chunk header alone).
  expected<std::size_t, failure> read_body(std::span<char> piece);
  /// Whether the whole body has been read.
  bool body_done() const;

private:
  template <class Start>
  boost::beast::error_code await(clock::time_point step_deadline, Start&& start);
  template <class F>
  decltype(auto) with_stream(F&& f);
  failure timed_out(clock::time_point step_deadline, failure_kind step_kind, std::string step) const;
  failure broken(const boost::beast::error_code& error, clock::time_point step_deadline, failure_kind io_kind,
                 failure_kind timeout_kind, const std::string& step) const;

  expected<boost::asio::ip::tcp::resolver::results_type, failure> resolve(const url& peer);
  expected<void, failure> connect_tcp(const url& peer);
  expected<void, failure> tunnel(const url& target, const url& proxy);
  expected<void, failure> handshake(const url& target, const std::string& ca_file);

  timeouts limits_;
  clock::time_point total_deadline_;
  clock::time_point connect_deadline_;
  std::string where_; // "api.anthropic.com:443", for messages
  boost::asio::io_context io_;
  boost::asio::ssl::context tls_context_;
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
  bool tls_ = false;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
};

} // namespace warpforge::llm::http
