#pragma once
// ZeroMQ endpoint text, read before we bind: the feed serves this host only unless told otherwise.
//
// A bind endpoint is local when nothing outside this host can connect to it: tcp on a loopback
// host (127.0.0.0/8, localhost, [::1]), ipc:// or inproc://. Anything else (0.0.0.0, *, an
// interface name, a public address, a host name) needs allow_remote, because the feed carries
// kernel sources' names, prompts' outcomes and timings that a campaign may not want to publish.

#include "foundation/expected/expected.hpp"
#include "feed/feed_error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::feed {

enum class endpoint_transport : std::uint8_t {
  tcp,    // tcp://host:port
  ipc,    // ipc:///path (a Unix socket; path up to about 107 characters)
  inproc, // inproc://name (same process, same ZeroMQ context)
};

std::string_view to_string(endpoint_transport transport);
std::optional<endpoint_transport> endpoint_transport_from_string(std::string_view text);

inline constexpr endpoint_transport all_endpoint_transports[] = {
  endpoint_transport::tcp, endpoint_transport::ipc, endpoint_transport::inproc};

struct endpoint_address {
  endpoint_transport transport = endpoint_transport::tcp;
  std::string host;   // tcp: as written, without IPv6 brackets ("127.0.0.1", "::1", "*"); else empty
  std::string port;   // tcp: decimal digits, or "*" / "0" for an ephemeral port; else empty
  std::string path;   // ipc / inproc: everything after "://"
  bool ipv6 = false;  // tcp host is an IPv6 literal ("[::1]"): the socket needs ZMQ_IPV6
  bool local = false; // reachable only from this host
};

/// Splits and checks endpoint text; does not resolve host names.
expected<endpoint_address, feed_error> parse_endpoint(std::string_view endpoint);

/// parse_endpoint, then refuses a non-local address unless allow_remote (remote_not_allowed,
/// place "host").
expected<endpoint_address, feed_error> check_bind_endpoint(std::string_view endpoint,
                                                           bool allow_remote);

/// The text handed to zmq_bind: ZeroMQ does not resolve host names when binding, so the name
/// localhost is spelled as its address, and an IPv6 literal gets its brackets back.
std::string bind_text(const endpoint_address& address);

/// The endpoint the feed wrote into a run directory's file (storage::run_directory's
/// feed_endpoint_path / replay_endpoint_path): its first word; empty when the file is missing.
std::string read_endpoint_file(const std::filesystem::path& file);

/// Where the replay socket binds for a feed bound at `feed_endpoint` (docs/events.md): the same
/// host, on the feed's port + 1 (a free port when the feed's is `*` or 0); ipc:// and inproc://
/// get ".replay" appended. The same loopback rule applies to it as to the feed. Fails with
/// bad_endpoint when the feed's endpoint does not parse or its port is 65535.
expected<std::string, feed_error> replay_endpoint_for(std::string_view feed_endpoint);

/// The endpoint a monitor connects to for an endpoint the feed advertises (in a heartbeat):
/// a wildcard host (`*`, 0.0.0.0, ::) is replaced by the host of `connected_feed`, the feed
/// endpoint the monitor reached; anything else is returned as it is.
std::string reachable_endpoint(std::string_view advertised, std::string_view connected_feed);

/// True for 127.0.0.0/8 in dotted-quad form, "localhost" (any case) and "::1".
bool is_loopback_host(std::string_view host);

} // namespace warpforge::feed
