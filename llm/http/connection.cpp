#include "llm/http/connection.hpp"

#include "llm/http/proxy.hpp"
#include "llm/http/tls.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <limits>

namespace warpforge::llm::http {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

// A response head larger than this is not an LLM provider's [bytes].
constexpr std::uint32_t max_head_bytes = 64 * 1024;

std::string_view timeout_name(failure_kind kind) {
  switch (kind) {
  case failure_kind::timeout_connect: return "connect";
  case failure_kind::timeout_first_byte: return "first-byte";
  case failure_kind::timeout_idle: return "idle";
  default: return "total";
  }
}

/// Whether the peer's bytes broke HTTP's grammar (as opposed to the connection breaking).
bool is_parse_error(const beast::error_code& error) {
  return error.category() == bhttp::make_error_code(bhttp::error::bad_version).category() &&
         error != bhttp::error::end_of_stream && error != bhttp::error::partial_message &&
         error != bhttp::error::need_buffer;
}

response_head head_of(const bhttp::response_parser<bhttp::buffer_body>& parser) {
  response_head head;
  head.status = parser.get().result_int();
  for (const auto& field : parser.get())
    head.headers.push_back({std::string{field.name_string()}, std::string{field.value()}});
  return head;
}

} // namespace

connection::connection(const timeouts& limits)
    : limits_(limits),
      total_deadline_(clock::now() + limits.total),
      connect_deadline_(clock::now() + limits.connect),
      tls_context_(net::ssl::context::tls_client),
      stream_(io_, tls_context_) {}

/// Starts an async operation and runs the io_context until it completes, under the earlier of the
/// step's deadline and the total one (tcp_stream closes the socket when it passes).
template <class Start>
beast::error_code connection::await(clock::time_point step_deadline, Start&& start) {
  beast::get_lowest_layer(stream_).expires_at(std::min(step_deadline, total_deadline_));
  bool done = false;
  beast::error_code result;
  start([&](beast::error_code error, auto&&...) {
    result = error;
    done = true;
  });
  io_.restart();
  while (!done && io_.run_one() > 0) {
  }
  beast::get_lowest_layer(stream_).expires_never();
  if (!done) // the context ran out of work without the handler: never read that as success
    return net::error::operation_aborted;
  return result;
}

/// Calls f with the stream HTTP is spoken on: the TLS stream, or the TCP stream under it.
template <class F>
decltype(auto) connection::with_stream(F&& f) {
  return tls_ ? f(stream_) : f(stream_.next_layer());
}

failure connection::timed_out(clock::time_point step_deadline, failure_kind step_kind, std::string step) const {
  const auto kind = total_deadline_ <= step_deadline ? failure_kind::timeout_total : step_kind;
  const auto limit = kind == failure_kind::timeout_total ? limits_.total
                     : kind == failure_kind::timeout_connect ? limits_.connect
                     : kind == failure_kind::timeout_first_byte ? limits_.first_byte
                                                               : limits_.idle;
  return {kind, std::move(step) + ": the " + std::string{timeout_name(kind)} + " timeout (" +
                    std::to_string(limit.count()) + " ms) ran out"};
}

/// The failure for an error of a step: a timeout as `timeout_kind` (or timeout_total), HTTP
/// grammar broken as protocol, anything else as `io_kind` with the system's reason.
failure connection::broken(const beast::error_code& error, clock::time_point step_deadline, failure_kind io_kind,
                           failure_kind timeout_kind, const std::string& step) const {
  if (error == beast::error::timeout || clock::now() >= std::min(step_deadline, total_deadline_))
    return timed_out(step_deadline, timeout_kind, step);
  if (is_parse_error(error))
    return {failure_kind::protocol, step + ": not HTTP/1.1 (" + error.message() + ")"};
  return {io_kind, step + ": " + error.message()};
}

expected<tcp::resolver::results_type, failure> connection::resolve(const url& peer) {
  tcp::resolver resolver{io_};
  net::steady_timer timer{io_};
  bool done = false, expired = false;
  beast::error_code result;
  tcp::resolver::results_type endpoints;
  timer.expires_at(std::min(connect_deadline_, total_deadline_));
  timer.async_wait([&](beast::error_code error) {
    if (!error && !done) {
      expired = true;
      resolver.cancel();
    }
  });
  resolver.async_resolve(peer.host, std::to_string(peer.port),
                         [&](beast::error_code error, tcp::resolver::results_type found) {
                           result = error;
                           endpoints = std::move(found);
                           done = true;
                           timer.cancel();
                         });
  io_.restart();
  io_.run();
  const std::string step = "resolving " + peer.host;
  if (expired)
    return unexpected{timed_out(connect_deadline_, failure_kind::timeout_connect, step)};
  if (result)
    return unexpected{failure{failure_kind::resolve, step + ": " + result.message()}};
  return endpoints;
}

expected<void, failure> connection::connect_tcp(const url& peer) {
  auto endpoints = resolve(peer);
  if (!endpoints)
    return unexpected{std::move(endpoints.error())};
  auto error = await(connect_deadline_, [&](auto handler) {
    stream_.next_layer().async_connect(*endpoints, std::move(handler));
  });
  if (error)
    return unexpected{broken(error, connect_deadline_, failure_kind::connect, failure_kind::timeout_connect,
                                "connecting to " + peer.host_and_port())};
  return {};
}

/// Asks the proxy for a tunnel to the target (CONNECT host:port); anything but 2xx is refused.
expected<void, failure> connection::tunnel(const url& target, const url& proxy) {
  const std::string step = "CONNECT " + target.host_and_port() + " through proxy " + proxy.host_and_port();
  bhttp::request<bhttp::empty_body> ask{bhttp::verb::connect, target.host_and_port(), 11};
  ask.set(bhttp::field::host, target.host_and_port());
  if (!proxy.userinfo.empty())
    ask.set(bhttp::field::proxy_authorization, proxy_authorization(proxy));
  auto error = await(connect_deadline_, [&](auto handler) {
    bhttp::async_write(stream_.next_layer(), ask, std::move(handler));
  });
  bhttp::response_parser<bhttp::empty_body> answer;
  answer.skip(true); // a 2xx to CONNECT has no body: the tunnel starts right after the head
  if (!error)
    error = await(connect_deadline_, [&](auto handler) {
      bhttp::async_read(stream_.next_layer(), buffer_, answer, std::move(handler));
    });
  if (error)
    return unexpected{broken(error, connect_deadline_, failure_kind::dropped, failure_kind::timeout_connect, step)};
  buffer_.clear();
  if (answer.get().result_int() / 100 != 2)
    return unexpected{failure{failure_kind::proxy,
                              step + ": the proxy answered " + std::to_string(answer.get().result_int())}};
  return {};
}

expected<void, failure> connection::handshake(const url& target, const std::string& ca_file) {
  const std::string step = "TLS handshake with " + target.host_and_port();
  if (auto prepared = prepare_tls(tls_context_, stream_.native_handle(), target.host, ca_file); !prepared)
    return unexpected{failure{failure_kind::tls, step + ": " + prepared.error()}};
  auto error = await(connect_deadline_, [&](auto handler) {
    stream_.async_handshake(net::ssl::stream_base::client, std::move(handler));
  });
  if (!error) {
    tls_ = true;
    return {};
  }
  if (error.category() == net::error::get_ssl_category())
    return unexpected{failure{failure_kind::tls, step + ": " + describe_tls_error(error.message(), stream_.native_handle())}};
  return unexpected{broken(error, connect_deadline_, failure_kind::dropped, failure_kind::timeout_connect, step)};
}

expected<void, failure> connection::open(const url& target, const std::optional<url>& proxy,
                                         const std::string& ca_file) {
  where_ = target.host_and_port() + (proxy ? " via proxy " + proxy->host_and_port() : "");
  if (proxy && proxy->tls())
    return unexpected{failure{failure_kind::proxy, "proxy " + proxy->host_and_port() +
                                                       ": https:// proxies are not spoken; use an http:// proxy URL"}};
  if (auto connected = connect_tcp(proxy ? *proxy : target); !connected)
    return connected;
  if (proxy && target.tls())
    if (auto tunnelled = tunnel(target, *proxy); !tunnelled)
      return tunnelled;
  if (target.tls())
    return handshake(target, ca_file);
  return {};
}

expected<void, failure> connection::write(outgoing& message) {
  const auto deadline = clock::now() + limits_.idle;
  auto error = await(deadline, [&](auto handler) {
    with_stream([&](auto& stream) { bhttp::async_write(stream, message, std::move(handler)); });
  });
  if (error)
    return unexpected{broken(error, deadline, failure_kind::dropped, failure_kind::timeout_idle,
                             "sending the request to " + where_)};
  return {};
}

expected<response_head, failure> connection::read_head(bool head_request) {
  parser_.emplace();
  // A streamed reply is as long as the model makes it. Not boost::none: Boost 1.74 compares a
  // Content-Length against the empty optional and refuses every such body.
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  parser_->header_limit(max_head_bytes);
  parser_->skip(head_request);
  const auto deadline = clock::now() + limits_.first_byte;
  auto error = await(deadline, [&](auto handler) {
    with_stream([&](auto& stream) { bhttp::async_read_header(stream, buffer_, *parser_, std::move(handler)); });
  });
  if (error)
    return unexpected{broken(error, deadline, failure_kind::dropped, failure_kind::timeout_first_byte,
                             "reading the response head from " + where_)};
  return head_of(*parser_);
}

expected<std::size_t, failure> connection::read_body(std::span<char> piece) {
  parser_->get().body().data = piece.data();
  parser_->get().body().size = piece.size();
  const auto deadline = clock::now() + limits_.idle;
  auto error = await(deadline, [&](auto handler) {
    with_stream([&](auto& stream) { bhttp::async_read_some(stream, buffer_, *parser_, std::move(handler)); });
  });
  const std::size_t filled = piece.size() - parser_->get().body().size;
  if (error == bhttp::error::need_buffer)
    error = {};
  if (error)
    return unexpected{broken(error, deadline, failure_kind::dropped, failure_kind::timeout_idle,
                             "reading the response body from " + where_)};
  return filled;
}

bool connection::body_done() const { return parser_ && parser_->is_done(); }

} // namespace warpforge::llm::http
