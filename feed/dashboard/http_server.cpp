#include "feed/dashboard/http_server.hpp"

#include "feed/dashboard/request_check.hpp"
#include "feed/endpoint.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <atomic>
#include <charconv>
#include <optional>
#include <set>
#include <thread>
#include <vector>

namespace warpforge::dashboard {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// How long a client may take to send its request, or to read a response [s].
constexpr std::chrono::seconds http_timeout{30};
// A GET has no body; anything bigger than this is not a request for the dashboard [bytes].
constexpr std::uint64_t max_request_body = 16 * 1024;
constexpr std::string_view page_target = "/";
constexpr std::string_view snapshot_target = "/snapshot.json";
constexpr std::string_view websocket_target = "/ws";

/// Boost 1.74's string_view as the standard one.
std::string_view std_view(beast::string_view text) {
  return {text.data(), text.size()};
}

unexpected<dashboard_error> fail(dashboard_errc code, std::string_view place, std::string message) {
  return unexpected{dashboard_error{code, std::string{place}, std::move(message), {}}};
}

class websocket_session;

/// What every session shares. Touched only on the server's thread, but for the counters.
struct shared_state {
  std::string page_html;
  std::shared_ptr<const std::string> latest; // the newest snapshot; null before the first
  std::set<websocket_session*> sessions;     // open WebSocket sessions
  std::atomic<std::uint64_t> http_requests{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> accept_failures{0};
  std::atomic<std::uint64_t> websocket_opened{0};
  std::atomic<std::uint64_t> websocket_open{0};
  std::atomic<std::uint64_t> messages_sent{0};
};

/// One page's WebSocket: sends snapshots, newest first when it falls behind; reads only to
/// notice the page going away.
class websocket_session : public std::enable_shared_from_this<websocket_session> {
public:
  websocket_session(tcp::socket&& socket, std::shared_ptr<shared_state> state)
      : ws_(std::move(socket)), state_(std::move(state)) {}

  ~websocket_session() { forget(); }

  void run(http::request<http::string_body> request) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.async_accept(request, beast::bind_front_handler(&websocket_session::on_accept, shared_from_this()));
  }

  /// Sends `snapshot` now, or after the write in flight (replacing any older one waiting).
  void send(std::shared_ptr<const std::string> snapshot) {
    if (writing_) {
      pending_ = std::move(snapshot);
      return;
    }
    write(std::move(snapshot));
  }

private:
  void on_accept(beast::error_code error) {
    if (error)
      return;
    registered_ = true;
    state_->sessions.insert(this);
    ++state_->websocket_opened;
    ++state_->websocket_open;
    if (state_->latest)
      send(state_->latest);
    read();
  }

  void read() {
    ws_.async_read(buffer_, beast::bind_front_handler(&websocket_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code error, std::size_t) {
    if (error)
      return forget(); // closed or gone: the session ends when its last handler does
    buffer_.consume(buffer_.size()); // the page has nothing to say; ignore what it sends
    read();
  }

  void write(std::shared_ptr<const std::string> snapshot) {
    writing_ = std::move(snapshot);
    ws_.text(true);
    ws_.async_write(net::buffer(*writing_),
                    beast::bind_front_handler(&websocket_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code error, std::size_t) {
    writing_.reset();
    if (error)
      return forget();
    ++state_->messages_sent;
    if (pending_)
      write(std::exchange(pending_, nullptr));
  }

  void forget() {
    if (!registered_)
      return;
    registered_ = false;
    state_->sessions.erase(this);
    --state_->websocket_open;
  }

  websocket::stream<beast::tcp_stream> ws_;
  std::shared_ptr<shared_state> state_;
  beast::flat_buffer buffer_;
  std::shared_ptr<const std::string> writing_; // kept alive while async_write reads it
  std::shared_ptr<const std::string> pending_; // the newest snapshot waiting for the write
  bool registered_ = false;
};

/// One HTTP connection: requests answered in turn (keep-alive), or handed to a WebSocket.
class http_session : public std::enable_shared_from_this<http_session> {
public:
  http_session(tcp::socket&& socket, std::shared_ptr<shared_state> state)
      : stream_(std::move(socket)), state_(std::move(state)), served_(served_by(stream_.socket())) {}

  void run() { read(); }

private:
  void read() {
    parser_.emplace();
    parser_->body_limit(max_request_body);
    stream_.expires_after(http_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&http_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code error, std::size_t) {
    if (error == http::error::end_of_stream)
      return shut_down();
    if (error)
      return;
    ++state_->http_requests;
    auto request = parser_->release();
    // Before anything else, the upgrade included: only a request that names this dashboard.
    if (const auto verdict = verdict_on(request); verdict != request_verdict::allowed) {
      ++state_->refused;
      return respond(refusal(request, verdict));
    }
    if (websocket::is_upgrade(request) && std_view(request.target()) == websocket_target) {
      stream_.expires_never(); // the WebSocket keeps its own timeouts
      std::make_shared<websocket_session>(stream_.release_socket(), state_)->run(std::move(request));
      return;
    }
    respond(answer(request));
  }

  http::response<http::string_body> answer(const http::request<http::string_body>& request) const {
    auto reply = [&](http::status status, std::string_view type, std::string body) {
      http::response<http::string_body> response{status, request.version()};
      response.set(http::field::server, "warpforge-dashboard");
      response.set(http::field::content_type, beast::string_view{type.data(), type.size()});
      response.set(http::field::cache_control, "no-store");
      response.keep_alive(request.keep_alive());
      response.body() = std::move(body);
      response.prepare_payload();
      return response;
    };
    if (request.method() != http::verb::get) {
      auto response = reply(http::status::method_not_allowed, "text/plain", "only GET is served\n");
      response.set(http::field::allow, "GET");
      return response;
    }
    const auto target = std_view(request.target());
    if (target == page_target)
      return reply(http::status::ok, "text/html; charset=utf-8", state_->page_html);
    if (target == snapshot_target) {
      if (!state_->latest)
        return reply(http::status::service_unavailable, "text/plain", "no snapshot yet\n");
      return reply(http::status::ok, "application/json", *state_->latest);
    }
    return reply(http::status::not_found, "text/plain",
                 "not found; the dashboard serves / , /snapshot.json and /ws\n");
  }

  // The local address the connection came in on, for the Host rule (request_check.hpp).
  static served_address served_by(const tcp::socket& socket) {
    beast::error_code error;
    const auto local = socket.local_endpoint(error);
    if (error)
      return {};
    auto address = local.address();
    if (address.is_v6() && address.to_v6().is_v4_mapped())
      address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
    return served_address{address.to_string(), local.port()};
  }

  request_verdict verdict_on(const http::request<http::string_body>& request) const {
    auto header = [&](http::field field) -> std::optional<std::string_view> {
      const auto found = request.find(field);
      if (found == request.end())
        return std::nullopt;
      return std_view(found->value());
    };
    return check_request(header(http::field::host), header(http::field::origin), served_);
  }

  // 403, and the connection closed: a page of another site learns nothing but the refusal.
  static http::response<http::string_body> refusal(const http::request<http::string_body>& request,
                                                   request_verdict verdict) {
    http::response<http::string_body> response{http::status::forbidden, request.version()};
    response.set(http::field::server, "warpforge-dashboard");
    response.set(http::field::content_type, "text/plain");
    response.set(http::field::cache_control, "no-store");
    response.keep_alive(false);
    response.body() = "forbidden (" + std::string{to_string(verdict)} +
                      "): the dashboard answers only requests for its own address (docs/dashboard.md)\n";
    response.prepare_payload();
    return response;
  }

  void respond(http::response<http::string_body> response) {
    response_ = std::make_shared<http::response<http::string_body>>(std::move(response));
    stream_.expires_after(http_timeout);
    http::async_write(stream_, *response_,
                      beast::bind_front_handler(&http_session::on_write, shared_from_this(),
                                                response_->need_eof()));
  }

  void on_write(bool close, beast::error_code error, std::size_t) {
    if (error)
      return;
    if (close)
      return shut_down();
    response_.reset();
    read();
  }

  void shut_down() {
    beast::error_code ignored; // the peer may be gone already; nothing to do about it
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  std::shared_ptr<shared_state> state_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> response_; // alive while async_write runs
  served_address served_; // where this connection arrived
};

/// Accepts connections until the io_context stops.
class listener : public std::enable_shared_from_this<listener> {
public:
  listener(net::io_context& context, tcp::acceptor acceptor, std::shared_ptr<shared_state> state)
      : context_(context), acceptor_(std::move(acceptor)), state_(std::move(state)), pause_(context) {}

  void accept() {
    acceptor_.async_accept(context_, beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

private:
  void on_accept(beast::error_code error, tcp::socket socket) {
    if (!acceptor_.is_open() || error == net::error::operation_aborted)
      return;
    if (!error || error == net::error::connection_aborted) { // a peer gone before accept: next
      if (!error)
        std::make_shared<http_session>(std::move(socket), state_)->run();
      return accept();
    }
    // Out of descriptors (EMFILE, ENFILE) or memory: the connection stays queued and the listening
    // socket stays readable, so accepting again at once fails again at once, a busy loop. Wait,
    // then try again; sessions that end meanwhile give their descriptors back.
    ++state_->accept_failures;
    pause_.expires_after(accept_backoff);
    pause_.async_wait([self = shared_from_this()](beast::error_code waited) {
      if (!waited)
        self->accept();
    });
  }

  net::io_context& context_;
  tcp::acceptor acceptor_;
  std::shared_ptr<shared_state> state_;
  net::steady_timer pause_; // the back-off after a failed accept
};

} // namespace

expected<listen_address, dashboard_error> parse_listen_address(std::string_view text, bool allow_remote) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return fail(dashboard_errc::bad_listen_address, "port",
                "expected host:port (e.g. 127.0.0.1:8757), got '" + std::string{text} + "'");
  auto host = text.substr(0, colon);
  const auto port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    return fail(dashboard_errc::bad_listen_address, "port",
                "'" + std::string{port_text} + "' is not a port number (0-65535; 0 = a free port)");
  listen_address address;
  address.host = host == "localhost" ? std::string{"127.0.0.1"} : std::string{host};
  address.port = static_cast<std::uint16_t>(port);
  beast::error_code invalid;
  net::ip::make_address(address.host, invalid);
  if (invalid)
    return fail(dashboard_errc::bad_listen_address, "host",
                "'" + std::string{host} + "' is not an IP address (give 127.0.0.1, ::1 or an interface's address)");
  if (!allow_remote && !feed::is_loopback_host(address.host))
    return fail(dashboard_errc::remote_not_allowed, "host",
                "'" + address.host + "' is reachable from other hosts; listen on 127.0.0.1 or pass "
                "--allow-remote to serve the dashboard beyond this host");
  return address;
}

struct http_server::impl {
  net::io_context context{1};
  std::shared_ptr<shared_state> state = std::make_shared<shared_state>();
  listen_address listen;
  std::thread thread;

  ~impl() {
    context.stop(); // pending handlers are dropped; their sessions end with them
    if (thread.joinable())
      thread.join();
  }
};

http_server::http_server(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
http_server::http_server(http_server&&) noexcept = default;
http_server& http_server::operator=(http_server&&) noexcept = default;
http_server::~http_server() = default;

expected<http_server, dashboard_error> http_server::start(http_server_options options) {
  auto state = std::make_unique<impl>();
  state->state->page_html = std::move(options.page_html);
  state->listen = options.listen;

  beast::error_code error;
  const tcp::endpoint endpoint{net::ip::make_address(options.listen.host, error), options.listen.port};
  if (error)
    return fail(dashboard_errc::bad_listen_address, "host", error.message());
  tcp::acceptor acceptor{state->context};
  auto step = [&](std::string_view name) -> std::optional<dashboard_error> {
    if (!error)
      return std::nullopt;
    return dashboard_error{dashboard_errc::socket_error, std::string{name},
                           options.listen.host + ":" + std::to_string(options.listen.port) + ": " + error.message(), {}};
  };
  acceptor.open(endpoint.protocol(), error);
  if (auto problem = step("open"))
    return unexpected{*problem};
  acceptor.set_option(net::socket_base::reuse_address(true), error);
  acceptor.bind(endpoint, error);
  if (error == net::error::address_in_use) // the default port, most often: say how to get another
    return fail(dashboard_errc::socket_error, "bind",
                "port " + std::to_string(options.listen.port) + " on " + options.listen.host +
                  " is already in use (another dashboard?); pass --listen " + options.listen.host +
                  ":0 for a free port, or name another one");
  if (auto problem = step("bind"))
    return unexpected{*problem};
  acceptor.listen(net::socket_base::max_listen_connections, error);
  if (auto problem = step("listen"))
    return unexpected{*problem};
  state->listen.port = acceptor.local_endpoint().port();

  std::make_shared<listener>(state->context, std::move(acceptor), state->state)->accept();
  state->thread = std::thread{[raw = state.get()] { raw->context.run(); }};
  return http_server{std::move(state)};
}

std::string http_server::url() const {
  const auto& host = impl_->listen.host;
  const bool ipv6 = host.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->listen.port) + "/";
}

std::uint16_t http_server::port() const {
  return impl_->listen.port;
}

void http_server::publish(std::string snapshot_json) {
  auto snapshot = std::make_shared<const std::string>(std::move(snapshot_json));
  net::post(impl_->context, [state = impl_->state, snapshot] {
    state->latest = snapshot;
    const std::vector<websocket_session*> open{state->sessions.begin(), state->sessions.end()};
    for (auto* session : open)
      session->send(snapshot);
  });
}

server_counters http_server::counters() const {
  const auto& s = *impl_->state;
  return server_counters{s.http_requests, s.websocket_opened, s.websocket_open, s.messages_sent,
                         s.refused, s.accept_failures};
}

} // namespace warpforge::dashboard
