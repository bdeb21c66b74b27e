#pragma once
// What went wrong in the dashboard library: an expected failure, returned as a value. Every
// error names its place (the listen address's part, the socket step).

#include "feed/feed_error.hpp"
#include "storage/store_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace warpforge::dashboard {

enum class dashboard_errc : std::uint8_t {
  bad_listen_address, // --listen is not host:port with a numeric host and a port 0-65535
  remote_not_allowed, // a listen address other hosts can reach, without allow_remote
  socket_error,       // opening, binding or listening on the socket failed
  bad_source,         // the run directory or its store cannot be read, or the feed endpoint is bad
};

std::string_view to_string(dashboard_errc code);
std::optional<dashboard_errc> dashboard_errc_from_string(std::string_view text);

inline constexpr dashboard_errc all_dashboard_errcs[] = {
  dashboard_errc::bad_listen_address, dashboard_errc::remote_not_allowed, dashboard_errc::socket_error,
  dashboard_errc::bad_source};

struct dashboard_error {
  dashboard_errc code = dashboard_errc::socket_error;
  std::string place;   // "host", "port", "bind", "listen"; for bad_source "run_dir", "store" or the
                       // feed endpoint it could not follow
  std::string message; // for a person
  // bad_source: the store's or the feed's own error beneath it, so a caller says it in that
  // error's words without reading them back out of `message`.
  std::variant<std::monostate, storage::store_error, feed::feed_error> cause;
};

/// "remote_not_allowed: host: '0.0.0.0' is reachable from other hosts; ...".
std::string to_string(const dashboard_error& error);

} // namespace warpforge::dashboard
