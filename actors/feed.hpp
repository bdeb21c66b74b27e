#pragma once
// feed: stamps every event with the next sequence number and the time, hands it to the store
// (so late monitors replay it), then publishes it on ZeroMQ without ever blocking. Events that
// the socket refused for every subscriber are reported as feed_dropped events, at most once a
// second (a slow subscriber loses only its own events: ZeroMQ drops per peer; docs/events.md).
// Beside the PUB socket it serves replay over the network (feed/replay_server.hpp: "the stored
// events since seq N", on its own socket and thread) and publishes a heartbeat at least every
// interval (feed/heartbeat.hpp: never stored, so the event log holds only the campaign's events):
// an idle timeout covers quiet stretches, the event handler busy ones. The one blocking handler,
// the wait for subscribers before a campaign's first event, beats no heartbeat while it waits.
// Runs detached: ZeroMQ calls and the subscriber wait must not hold a scheduler thread.

#include "feed/defaults.hpp"
#include "feed/publisher.hpp"
#include "feed/replay_server.hpp"
#include "messages/feed.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::actors {

/// How often, at most, drops are reported as a feed_dropped event.
inline constexpr std::chrono::seconds drop_report_interval{1};

struct feed_options {
  feed::publisher_options publisher;
  std::string campaign;                  // stamped on events that carry none
  std::filesystem::path endpoint_file;   // where the bound endpoint is written for `tail`; empty: none
  std::filesystem::path database;        // the store replay is served from; empty: no replay endpoint
  std::string replay_endpoint;           // empty: feed::replay_endpoint_for(publisher.endpoint)
  std::filesystem::path replay_endpoint_file; // where the replay endpoint is written; empty: none
  std::chrono::milliseconds heartbeat_interval = feed::default_heartbeat_interval;
};

struct feed_state {
  static inline const char* name = "feed";

  std::optional<feed::publisher> publisher;
  std::optional<feed::replay_server> replay; // absent when no database was given
  std::string campaign;
  std::uint64_t next_seq = 1;
  std::chrono::milliseconds heartbeat_interval = feed::default_heartbeat_interval;
  std::chrono::steady_clock::time_point last_drop_report{};
  std::chrono::steady_clock::time_point last_heartbeat{};

  /// Binds the publisher and the replay endpoint and writes their endpoint files; throws when it
  /// cannot (port taken, remote address not allowed): a feed that cannot publish is dead, the
  /// supervisor decides.
  void bind(const feed_options& options);

  /// Gives `e` its seq, time and campaign; a campaign_started event also gets feed_endpoint and
  /// replay_endpoint in its detail, so a monitor that saw it knows where to ask.
  void stamp(feed::event& e);

  /// The replay endpoint as bound; empty without one.
  std::string replay_endpoint() const;

  /// A heartbeat event when one is due (interval elapsed since the last), else nullopt.
  std::optional<feed::event> due_heartbeat();

  messages::component_status status();
};

messages::feed_actor::behavior_type
feed(messages::feed_actor::stateful_pointer<feed_state> self, feed_options options);

} // namespace warpforge::actors
