#pragma once
// What a monitor does, as one object: subscribe first, ask the replay endpoint for what came
// before, then hand out every event exactly once and in seq order, filling any gap from the
// replay endpoint, and tell from heartbeats whether the feed is alive. `warpforge tail`, the
// terminal progress and the dashboard follow a campaign with it; examples/monitor/monitor.py is
// the same recipe in Python (docs/events.md, "Replay over the network").
//
//   auto f = follower::connect({.endpoint = "tcp://host:5757", .after_seq = 0});
//   while (auto next = f->next(200ms))            // errors: a malformed message, reported
//     if (*next) show((*next)->decoded);           // seq 1, 2, 3, ... each once
//   if (f->health() == feed_health::silent) ...    // nothing heard for the silence timeout
//
// Gaps: a live event whose seq is more than one above the last handed out (a late start, the
// slow-joiner loss, this monitor's own queue overflowing while it was slow: the publisher drops
// per subscriber and tells nobody), or a heartbeat whose seq is above it (events missed in a
// quiet stretch). The events after the gap are held back until the replay endpoint has sent the
// missing ones; a gap it cannot fill within the silence timeout (no replay endpoint, the store
// lost them) is skipped and counted in missed(), so a monitor never stalls for good.
//
// The follower subscribes to every event (a topic filter would make gaps undetectable); filter
// what next() returns instead. One thread at a time; movable, not copyable.

#include "feed/defaults.hpp"
#include "foundation/expected/expected.hpp"
#include "feed/event_json.hpp"
#include "feed/feed_error.hpp"
#include "feed/heartbeat.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::feed {

/// Whether the feed is heard.
enum class feed_health : std::uint8_t {
  waiting, // nothing heard yet (no event, no heartbeat)
  live,    // an event or heartbeat within the silence timeout
  silent,  // heard before, but nothing for longer than the silence timeout: gone or stuck
};

std::string_view to_string(feed_health health);
std::optional<feed_health> feed_health_from_string(std::string_view text);

inline constexpr feed_health all_feed_healths[] = {feed_health::waiting, feed_health::live,
                                                   feed_health::silent};

struct follower_options {
  std::string endpoint{};      // the feed's PUB endpoint
  std::string replay_endpoint{}; // empty: learnt from the first heartbeat (a wildcard host becomes
                               // the feed endpoint's host)
  std::optional<std::uint64_t> after_seq{}; // hand out every event after this one, the missing
                                          // ones replayed (0 = from the start); nullopt: begin
                                          // with what is live now
  bool replay_at_start = true; // with after_seq: ask the replay endpoint at once, rather than
                               // when the feed shows a later seq (an event or the next heartbeat);
                               // false suits a monitor that has just read the store itself
  std::chrono::milliseconds silence = default_silence;
  std::chrono::milliseconds replay_timeout = default_replay_timeout; // per reply
};

class follower {
public:
  /// Subscribes to every event at `endpoint` (and connects the replay client when its endpoint
  /// is given). Fails with bad_endpoint or socket_error.
  static expected<follower, feed_error> connect(follower_options options);

  follower(follower&&) noexcept;
  follower& operator=(follower&&) noexcept;
  ~follower();

  /// The next event in seq order, each once; nullopt when none is ready within `timeout` (a
  /// replay in flight may take up to the replay timeout longer). Heartbeats are not returned.
  /// Errors are what the subscriber reports (a malformed message, consumed; call again).
  expected<std::optional<wire_event>, feed_error> next(std::chrono::milliseconds timeout);

  feed_health health() const;
  /// Seconds since the feed was last heard; nullopt before it was heard at all.
  std::optional<double> silent_for_s() const;
  /// The seq of the last event handed out (or skipped as missed); nullopt before any.
  std::optional<std::uint64_t> last_seq() const;
  std::uint64_t replayed() const;   // events handed out that came from the replay endpoint
  std::uint64_t missed() const;     // events known to exist that could not be replayed
  std::uint64_t duplicates() const; // live events dropped because they were already handed out
  /// The replay endpoint in use (given, or learnt from a heartbeat); empty when none is known.
  const std::string& replay_endpoint() const;
  std::optional<heartbeat> last_heartbeat() const;
  /// Why the latest replay request failed (no_reply, replay_refused...); nullopt when it did not.
  std::optional<feed_error> last_replay_error() const;

private:
  struct impl;
  explicit follower(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::feed
