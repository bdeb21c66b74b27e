#pragma once
// feed: stamps every event with the next sequence number and the time, hands it to the store
// (so late monitors replay it), then publishes it on ZeroMQ without ever blocking. Drops caused
// by slow subscribers are themselves reported as feed_dropped events, at most once a second.
// Runs detached: ZeroMQ calls and the subscriber wait must not hold a scheduler thread.

#include "feed/publisher.hpp"
#include "messages/feed.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::actors {

struct feed_options {
  feed::publisher_options publisher;
  std::string campaign;                  // stamped on events that carry none
  std::filesystem::path endpoint_file;   // where the bound endpoint is written for `tail`; empty: none
};

/// How often, at most, drops are reported as a feed_dropped event.
inline constexpr std::chrono::seconds drop_report_interval{1};

struct feed_state {
  static inline const char* name = "feed";

  std::optional<feed::publisher> publisher;
  std::string campaign;
  std::uint64_t next_seq = 1;
  std::chrono::steady_clock::time_point last_drop_report{};

  /// Binds the publisher and writes the endpoint file; throws when it cannot (port taken,
  /// remote address not allowed): a feed that cannot publish is dead, the supervisor decides.
  void bind(const feed_options& options);

  /// Gives `e` its seq, time and campaign.
  void stamp(feed::event& e);

  messages::component_status status();
};

messages::feed_actor::behavior_type
feed(messages::feed_actor::stateful_pointer<feed_state> self, feed_options options);

} // namespace warpforge::actors
