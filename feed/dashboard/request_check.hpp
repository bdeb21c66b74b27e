#pragma once
// Whom the dashboard answers: a request must name the dashboard itself. Without this check any web
// page the user visits could read the snapshots (absolute paths, kernel names, build logs): a
// script on attacker.example opens ws://127.0.0.1:8757/ws (browsers send no CORS check for a
// WebSocket), or a name of the attacker's is re-pointed at 127.0.0.1 (DNS rebinding) so the
// page's own origin reaches the dashboard. Both carry a Host or Origin that is not the dashboard's.
//
// The rule, for every request (page, snapshot, WebSocket upgrade alike):
//   Host    required; its host is the address the connection came in on (an IP literal, as the
//           dashboard's URL prints it), or, when that address is loopback, `localhost`,
//           `127.0.0.1` or `[::1]`; its port is the dashboard's (no port: 80). A name other
//           than localhost is never accepted: names are what rebinding controls.
//   Origin  when present, `http://` + a Host the rule above accepts (the page's own origin);
//           `null`, another scheme, host or port is refused.
// Anything else is answered 403 (http_server.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::dashboard {

enum class request_verdict : std::uint8_t {
  allowed,        // Host (and Origin, if any) name this dashboard
  missing_host,   // no Host header (HTTP/1.0, or a hand-made request)
  foreign_host,   // Host names another host or port (DNS rebinding, a proxy, a typo)
  foreign_origin, // Origin is another site's page (cross-site WebSocket or fetch)
};

std::string_view to_string(request_verdict verdict);
std::optional<request_verdict> request_verdict_from_string(std::string_view text);

inline constexpr request_verdict all_request_verdicts[] = {
  request_verdict::allowed, request_verdict::missing_host, request_verdict::foreign_host,
  request_verdict::foreign_origin};

/// Where a connection arrived: the local address it was accepted on and the dashboard's port.
struct served_address {
  std::string address; // numeric ("127.0.0.1", "::1", "192.0.2.7"); an IPv4-mapped IPv6 as IPv4
  std::uint16_t port = 0;
};

/// Whether a Host header value ("127.0.0.1:8757", "[::1]:8757", "localhost:8757") names `served`.
bool names_this_dashboard(std::string_view host_header, const served_address& served);

/// The verdict on a request's Host and Origin headers (nullopt: the header is absent).
request_verdict check_request(std::optional<std::string_view> host, std::optional<std::string_view> origin,
                              const served_address& served);

} // namespace warpforge::dashboard
