#pragma once
// The feed's pulse: a `heartbeat` event, published every interval
// (feed/defaults.hpp: default_heartbeat_interval), so that a monitor can tell a quiet campaign from
// a dead one and learn where to ask for what it missed.
//
// A heartbeat is not part of the event log. It is never stored (it says only "alive now": a
// replay of old heartbeats would tell nothing, and an overnight campaign would store tens of
// thousands of them), and it has no seq of its own: its seq is the seq of the last event the
// feed published (0 before the first). So a monitor that skips events whose seq is not above the
// last it applied skips heartbeats too, and a heartbeat whose seq is above it says that events
// were missed: ask the replay endpoint for them (docs/events.md, "Replay over the network").

#include "foundation/expected/expected.hpp"
#include "feed/event.hpp"
#include "feed/feed_error.hpp"

#include <cstdint>
#include <string>

namespace warpforge::feed {

struct heartbeat {
  std::uint64_t last_seq = 0;        // seq of the last event published before it; 0 = none yet
  double interval_s = 0.0;           // the next heartbeat comes within this [s]
  std::string feed_endpoint;         // the PUB socket as bound ("tcp://127.0.0.1:5757")
  std::string replay_endpoint;       // the replay socket as bound; empty: this feed serves no replay
  std::uint64_t published_total = 0; // events published since the feed started [events]
};

/// The heartbeat as an event: type heartbeat, seq = last_seq, the rest in its detail.
event to_event(const heartbeat& pulse, double ts, std::string campaign);

/// Reads a heartbeat back. Fails with bad_message (not a heartbeat event) or bad_field naming
/// the detail member that is missing or of the wrong type.
expected<heartbeat, feed_error> read_heartbeat(const event& e);

} // namespace warpforge::feed
