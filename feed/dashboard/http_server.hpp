#pragma once
// The dashboard's server (Boost.Beast): one page over HTTP, and the campaign's snapshots pushed to
// every open page over a WebSocket.
//
//   GET /               the page (feed/dashboard/page.html, compiled in)
//   GET /snapshot.json  the latest snapshot (for scripts, and the page's first paint)
//   GET /ws             WebSocket: the latest snapshot at once, then each one published
//   anything else       404 (405 for a method other than GET or HEAD)
//
// Every request, the WebSocket upgrade included, must name this dashboard in Host (and Origin,
// when sent): anything else is answered 403 and the connection closed (request_check.hpp says
// why and the exact rule), so no other web page, nor a DNS-rebound name, can read the snapshots.
//
// publish() may be called from any thread; the server runs on its own thread (one io_context,
// so sessions need no strands) and sends each page only the newest snapshot when it falls behind.
// It binds to a loopback address unless allowed otherwise (the feed's rule: a campaign's
// kernels, timings and failures are not published beyond this host by accident).

#include "feed/dashboard/dashboard_error.hpp"
#include "foundation/expected/expected.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace warpforge::dashboard {

/// Where the dashboard listens unless told otherwise.
inline constexpr std::string_view default_listen = "127.0.0.1:8757";

/// How long the server waits before accepting again after accept failed (out of descriptors:
/// EMFILE, ENFILE; or memory): the waiting connection stays readable, so an immediate retry would
/// spin a core. Bounds the failed accepts to 20 a second [ms].
inline constexpr std::chrono::milliseconds accept_backoff{50};

struct listen_address {
  std::string host;       // numeric, as given ("127.0.0.1", "::1"); "localhost" becomes 127.0.0.1
  std::uint16_t port = 0; // 0: a free port
};

/// Reads "host:port" ("127.0.0.1:8757", "[::1]:0", "localhost:8757") and applies the loopback
/// rule. Fails with bad_listen_address (place "host" or "port") or remote_not_allowed.
expected<listen_address, dashboard_error> parse_listen_address(std::string_view text, bool allow_remote);

struct http_server_options {
  listen_address listen{"127.0.0.1", 0};
  std::string page_html{}; // what GET / serves
};

/// What the server has done since it started.
struct server_counters {
  std::uint64_t http_requests = 0;   // HTTP requests answered (upgrades included)
  std::uint64_t websocket_opened = 0; // WebSocket sessions accepted
  std::uint64_t websocket_open = 0;  // WebSocket sessions open now
  std::uint64_t messages_sent = 0;   // snapshots written to WebSockets
  std::uint64_t refused = 0;         // requests answered 403 (Host or Origin not this dashboard)
  std::uint64_t accept_failures = 0; // accepts that failed and were retried after accept_backoff
};

class http_server {
public:
  /// Binds, listens and starts serving on its own thread. Fails with socket_error naming the
  /// step (open, bind, listen) and the system's reason.
  static expected<http_server, dashboard_error> start(http_server_options options);

  http_server(http_server&&) noexcept;
  http_server& operator=(http_server&&) noexcept;
  ~http_server(); // closes every session and joins the thread

  /// "http://127.0.0.1:41999/" with the port actually bound.
  std::string url() const;
  std::uint16_t port() const;

  /// Makes `snapshot_json` the latest snapshot and sends it to every open page.
  void publish(std::string snapshot_json);

  server_counters counters() const;

private:
  struct impl;
  explicit http_server(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::dashboard
