#include "tests/llm/support/loopback_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace warpforge::llm::testing {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

// The largest request body a test sends [bytes].
constexpr std::uint64_t max_request_body = 64 * 1024 * 1024;
// One relay read in a tunnel [bytes].
constexpr std::size_t relay_piece_bytes = 16 * 1024;

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

std::string status_line(unsigned status) {
  auto reason = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  std::string text{reason.data(), reason.size()};
  if (text.empty() || text.front() == '<')
    text = status == 529 ? "Overloaded" : "Status";
  return "HTTP/1.1 " + std::to_string(status) + " " + text + "\r\n";
}

std::string header_lines(const std::vector<recorded_header>& headers) {
  std::string out;
  for (const auto& h : headers)
    out += h.name + ": " + h.value + "\r\n";
  return out;
}

} // namespace

std::optional<std::string> recorded_request::header(std::string_view name) const {
  for (const auto& h : headers)
    if (same_name(h.name, name))
      return h.value;
  return std::nullopt;
}

/// What the server's threads share; the acceptor's io_context only runs on the accept thread.
struct loopback_server::state {
  mutable std::mutex mutex;
  std::condition_variable wake;    // sleeping handlers wait on it; stop notifies
  bool stopping = false;
  std::vector<recorded_request> requests;
  std::vector<std::string> errors;
  std::size_t in_flight = 0;
  std::size_t peak_in_flight = 0;
  std::set<int> live_sockets;      // native handles to shut when stopping
  std::vector<std::thread> workers;

  handler on_request;
  net::io_context io;
  tcp::acceptor acceptor{io};
  ssl::context tls{ssl::context::tls_server};
  bool use_tls = false;
  std::uint16_t port = 0;
  std::thread accept_thread;

  void accept_next();
  void serve(tcp::socket socket);
  void answer(connection& link, connection::impl& link_state,
              boost::beast::http::request<boost::beast::http::string_body> message);
};

/// One connection's stream (TLS over the socket, or the socket alone) and the request read from it.
struct connection::impl {
  loopback_server::state& server;
  ssl::stream<tcp::socket> stream;
  bool tls = false;
  bool is_open = true;
  bool wrote_any = false; // whether the handler has written anything yet
  boost::beast::flat_buffer buffer;
  recorded_request request;

  impl(loopback_server::state& owner, tcp::socket socket)
      : server(owner), stream(std::move(socket), owner.tls), tls(owner.use_tls) {}

  tcp::socket& socket() { return stream.next_layer(); }

  /// Takes the socket off the list the stop path shuts, before it is closed (its number may be reused).
  void forget_socket() {
    std::lock_guard lock{server.mutex};
    server.live_sockets.erase(socket().native_handle());
  }

  bool write(std::string_view bytes) {
    if (!is_open)
      return false;
    wrote_any = true;
    boost::system::error_code error;
    if (tls)
      net::write(stream, net::buffer(bytes.data(), bytes.size()), error);
    else
      net::write(socket(), net::buffer(bytes.data(), bytes.size()), error);
    is_open = !error;
    return is_open;
  }

  template <class Parser>
  void read(Parser& parser, boost::system::error_code& error) {
    if (tls)
      bhttp::read(stream, buffer, parser, error);
    else
      bhttp::read(socket(), buffer, parser, error);
  }
};

connection::connection(std::unique_ptr<impl> state) : state_(std::move(state)) {}
connection::~connection() = default;

const recorded_request& connection::request() const { return state_->request; }

bool connection::open() const { return state_->is_open; }

bool connection::write_raw(std::string_view bytes) { return state_->write(bytes); }

bool connection::respond(unsigned status, std::string_view body, const std::vector<recorded_header>& headers,
                         std::string_view content_type) {
  std::string head = status_line(status);
  if (!content_type.empty())
    head += "Content-Type: " + std::string{content_type} + "\r\n";
  head += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n" + header_lines(headers) + "\r\n";
  return write_raw(head + std::string{body});
}

bool connection::start_chunked(unsigned status, std::string_view content_type,
                               const std::vector<recorded_header>& headers) {
  return write_raw(status_line(status) + "Content-Type: " + std::string{content_type} +
                   "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n" + header_lines(headers) + "\r\n");
}

bool connection::send_chunk(std::string_view bytes) {
  if (bytes.empty())
    return open(); // an empty chunk would end the body
  char size[32];
  const int length = std::snprintf(size, sizeof size, "%zx\r\n", bytes.size());
  return write_raw(std::string{size, static_cast<std::size_t>(length)} + std::string{bytes} + "\r\n");
}

bool connection::end_chunked() { return write_raw("0\r\n\r\n"); }

bool connection::start_sse(unsigned status, const std::vector<recorded_header>& headers) {
  auto all = headers;
  all.push_back({"Cache-Control", "no-cache"});
  return start_chunked(status, "text/event-stream", all);
}

bool connection::send_event(std::string_view event, std::string_view data) {
  std::string text;
  if (!event.empty())
    text += "event: " + std::string{event} + "\n";
  std::size_t start = 0;
  while (true) {
    const auto end = data.find('\n', start);
    text += "data: " + std::string{data.substr(start, end - start)} + "\n";
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
  return send_chunk(text + "\n");
}

void connection::sleep(std::chrono::milliseconds duration) {
  std::unique_lock lock{state_->server.mutex};
  state_->server.wake.wait_for(lock, duration, [&] { return state_->server.stopping; });
}

void connection::close() {
  if (!state_->is_open)
    return;
  state_->is_open = false;
  boost::system::error_code ignored;
  state_->socket().shutdown(tcp::socket::shutdown_both, ignored);
}

void connection::reset() {
  if (!state_->is_open)
    return;
  state_->is_open = false;
  boost::system::error_code ignored;
  state_->socket().set_option(net::socket_base::linger{true, 0}, ignored);
  state_->forget_socket();
  state_->socket().close(ignored); // with linger 0 the kernel sends RST
}

namespace {

/// Copies bytes from `from` to `to` until either fails, then shuts both so the other direction ends too.
void relay(tcp::socket& from, tcp::socket& to) {
  std::array<char, relay_piece_bytes> piece;
  boost::system::error_code error;
  while (!error) {
    const std::size_t n = from.read_some(net::buffer(piece), error);
    if (n > 0)
      net::write(to, net::buffer(piece.data(), n), error);
  }
  ::shutdown(from.native_handle(), SHUT_RDWR);
  ::shutdown(to.native_handle(), SHUT_RDWR);
}

} // namespace

bool connection::tunnel_to(std::uint16_t port) {
  if (state_->tls || !state_->is_open)
    return false;
  tcp::socket upstream{state_->server.io};
  boost::system::error_code error;
  upstream.connect({net::ip::make_address_v4("127.0.0.1"), port}, error);
  if (error) {
    respond(502, "the tunnel's far end is not listening", {}, "text/plain");
    return false;
  }
  if (!write_raw("HTTP/1.1 200 Connection established\r\n\r\n"))
    return false;
  if (state_->buffer.size() > 0) { // bytes the client sent right behind its CONNECT
    net::write(upstream, state_->buffer.data(), error);
    state_->buffer.consume(state_->buffer.size());
  }
  std::thread back{[&] { relay(upstream, state_->socket()); }};
  relay(state_->socket(), upstream);
  back.join();
  state_->is_open = false;
  return true;
}

handler in_order(std::vector<handler> steps) {
  return [steps = std::move(steps)](connection& link) {
    if (link.index() < steps.size())
      return steps[link.index()](link);
    throw std::runtime_error("request " + std::to_string(link.index()) + " is past the script's " +
                             std::to_string(steps.size()) + " steps");
  };
}

void loopback_server::state::accept_next() {
  acceptor.async_accept([this](boost::system::error_code error, tcp::socket socket) {
    if (error)
      return; // the acceptor was closed: the server is stopping
    std::lock_guard lock{mutex};
    if (stopping)
      return;
    live_sockets.insert(socket.native_handle());
    workers.emplace_back([this, s = std::move(socket)]() mutable { serve(std::move(s)); });
    accept_next();
  });
}

/// One connection: handshake (TLS), read and record the request, let the handler answer, close.
void loopback_server::state::serve(tcp::socket socket) {
  auto owned = std::make_unique<connection::impl>(*this, std::move(socket));
  connection::impl& link_state = *owned;
  connection link{std::move(owned)};
  boost::system::error_code error;
  if (link_state.tls)
    link_state.stream.handshake(ssl::stream_base::server, error);
  bhttp::request_parser<bhttp::string_body> parser;
  parser.body_limit(max_request_body);
  if (!error)
    link_state.read(parser, error);
  if (!error)
    answer(link, link_state, parser.release());
  link.close();
  link_state.forget_socket();
  link_state.socket().close(error);
}

/// Records the request, then runs the handler on it, counting how many are answered at once.
void loopback_server::state::answer(connection& link, connection::impl& link_state,
                                    bhttp::request<bhttp::string_body> message) {
  auto& request = link_state.request;
  request.method = std::string{message.method_string()};
  request.target = std::string{message.target()};
  for (const auto& field : message)
    request.headers.push_back({std::string{field.name_string()}, std::string{field.value()}});
  request.body = std::move(message.body());
  {
    std::lock_guard lock{mutex};
    request.index = requests.size();
    requests.push_back(request);
    peak_in_flight = std::max(peak_in_flight, ++in_flight);
  }
  try {
    on_request(link);
  } catch (const std::exception& failure) {
    {
      std::lock_guard lock{mutex};
      errors.push_back("request " + std::to_string(request.index) + ": " + failure.what());
    }
    if (!link_state.wrote_any) // recorded first, so a test that sees the 500 also sees the error
      link.respond(500, "{\"error\":\"the loopback handler failed\"}");
  }
  std::lock_guard lock{mutex};
  --in_flight;
}

loopback_server::loopback_server(handler on_request, loopback_options options)
    : state_(std::make_unique<state>()) {
  state_->on_request = std::move(on_request);
  if (!options.certificate_pem.empty()) {
    state_->use_tls = true;
    state_->tls.use_certificate_chain(net::buffer(options.certificate_pem));
    state_->tls.use_private_key(net::buffer(options.private_key_pem), ssl::context::pem);
  }
  const tcp::endpoint loopback{net::ip::make_address_v4("127.0.0.1"), 0};
  state_->acceptor.open(loopback.protocol());
  state_->acceptor.bind(loopback);
  state_->acceptor.listen();
  state_->port = state_->acceptor.local_endpoint().port();
  state_->accept_next();
  state_->accept_thread = std::thread{[s = state_.get()] { s->io.run(); }};
}

loopback_server::~loopback_server() {
  {
    std::lock_guard lock{state_->mutex};
    state_->stopping = true;
  }
  state_->wake.notify_all();
  net::post(state_->io, [s = state_.get()] {
    boost::system::error_code ignored;
    s->acceptor.close(ignored);
  });
  state_->accept_thread.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock{state_->mutex};
    for (const int socket : state_->live_sockets)
      ::shutdown(socket, SHUT_RDWR); // wakes a worker blocked in a read or a write
    workers = std::move(state_->workers);
  }
  for (auto& worker : workers)
    worker.join();
}

std::uint16_t loopback_server::port() const { return state_->port; }

std::string loopback_server::base_url() const {
  return std::string{state_->use_tls ? "https" : "http"} + "://127.0.0.1:" + std::to_string(port());
}

std::vector<recorded_request> loopback_server::requests() const {
  std::lock_guard lock{state_->mutex};
  return state_->requests;
}

std::size_t loopback_server::request_count() const {
  std::lock_guard lock{state_->mutex};
  return state_->requests.size();
}

std::size_t loopback_server::peak_in_flight() const {
  std::lock_guard lock{state_->mutex};
  return state_->peak_in_flight;
}

std::vector<std::string> loopback_server::handler_errors() const {
  std::lock_guard lock{state_->mutex};
  return state_->errors;
}

} // namespace warpforge::llm::testing
