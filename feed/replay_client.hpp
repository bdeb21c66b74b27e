#pragma once
// The asking end of replay over the network (feed/replay_protocol.hpp): a ZeroMQ REQ socket that
// sends one request and reads the header and event frames back. feed::follower uses it to fill
// gaps; tests use it directly.
//
// A REQ socket cannot send again before its reply came, so a request whose reply does not come in
// time replaces the socket (the ZeroMQ guide's "lazy pirate"): the next fetch starts clean.
// What the server can make it hold is bounded (feed/defaults.hpp): a frame over max_event_bytes
// drops the connection before it is allocated, and a reply of more than max_replay_page + 1
// frames is refused (bad_message) with its extra frames read and let go.
// One thread at a time; movable, not copyable.

#include "foundation/expected/expected.hpp"
#include "feed/event_json.hpp"
#include "feed/feed_error.hpp"
#include "feed/replay_protocol.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace warpforge::feed {

/// One reply: its header and its events, in seq order.
struct replay_page {
  replay_header header;
  std::vector<wire_event> events;
};

class replay_client {
public:
  /// Connects (in the background: an absent server is not an error until a fetch times out).
  /// Fails with bad_endpoint or socket_error.
  static expected<replay_client, feed_error> connect(std::string endpoint);

  replay_client(replay_client&&) noexcept;
  replay_client& operator=(replay_client&&) noexcept;
  ~replay_client();

  const std::string& endpoint() const;

  /// One request, one reply. Errors: no_reply (nothing within `timeout`; the socket is replaced),
  /// replay_refused (the server's status was not ok: its place and message), bad_message (frame
  /// count differs from the header's count, or is above the bound), the decode errors of
  /// event_json.hpp for an event
  /// frame, socket_error.
  expected<replay_page, feed_error> fetch(const replay_request& request,
                                          std::chrono::milliseconds timeout);

private:
  struct impl;
  explicit replay_client(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::feed
