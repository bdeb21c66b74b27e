#pragma once
// The replay endpoint: a ZeroMQ REP socket beside the feed's PUB that answers "the stored events
// since seq N" (feed/replay_protocol.hpp) from the run directory's database, so a monitor on
// another machine catches up over the network, without the run directory's files.
//
// It reads the database read-only through storage/ (WAL: beside the store actor, the one writer)
// and opens it on the first request, since the store may still be creating it when the feed
// binds. It runs on its own thread with its own ZeroMQ context, so a slow query never holds the
// feed actor; destroying the server stops the thread and unbinds.
// The same loopback-unless-allowed rule as the feed applies to its endpoint.
//
// No request holds the thread: the socket is a ROUTER (REQ clients talk to it as to a REP), so a
// request whose `until` the store has not reached waits in a bounded list (at most
// max_replay_requests_waiting, each at most `catch_up`) while other requests are answered, and
// every reply is one bounded page (at most max_page events and max_replay_reply_bytes of them).
// What a peer can make it hold is bounded too (feed/defaults.hpp): a frame over
// max_replay_request_bytes disconnects the peer before it is allocated (ZMQ_MAXMSGSIZE), a
// message of more than max_replay_request_frames frames is dropped unanswered, at most
// replay_request_high_water_mark requests queue per peer, and a reply beyond
// replay_reply_high_water_mark unread ones is refused by ZeroMQ and offered again for
// replay_reply_retry (at most max_replay_unsent_replies, max_replay_unsent_per_peer of one peer
// and max_replay_unsent_bytes of events kept at once), then dropped (its request times out;
// ask again).

#include "feed/defaults.hpp"
#include "foundation/expected/expected.hpp"
#include "feed/feed_error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace warpforge::feed {

struct replay_server_options {
  std::string endpoint{};         // bind address; tcp://127.0.0.1:* or port 0 = a free port
  bool allow_remote = false;      // permit an address other hosts can reach (0.0.0.0, a NIC)
  std::filesystem::path database{}; // the run directory's warpforge.db (read-only)
  std::uint32_t default_page = default_replay_page; // events per reply unless asked
  std::uint32_t max_page = max_replay_page; // larger limits are cut to this
  std::chrono::milliseconds catch_up = default_replay_catch_up; // wait for `until`
};

/// What the server has done since it started.
struct replay_counters {
  std::uint64_t requests = 0;      // requests answered, whatever the status
  std::uint64_t events_served = 0; // event frames sent
  std::uint64_t refused = 0;       // replies with a status other than ok
};

class replay_server {
public:
  /// Binds a REP socket and starts answering. Fails with bad_endpoint / remote_not_allowed
  /// (check_bind_endpoint), bad_option (a page of 0, default_page > max_page) or socket_error
  /// (the port is taken...). A missing database is not an error here: requests are answered
  /// `unavailable` until it exists.
  static expected<replay_server, feed_error> start(const replay_server_options& options);

  replay_server(replay_server&&) noexcept;
  replay_server& operator=(replay_server&&) noexcept;
  ~replay_server();

  /// The endpoint actually bound, with the real port: "tcp://127.0.0.1:41238".
  const std::string& endpoint() const;

  replay_counters counters() const;

private:
  struct impl;
  explicit replay_server(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::feed
