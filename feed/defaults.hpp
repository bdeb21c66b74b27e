#pragma once
// Every default of the feed's sockets, named, with its unit. The campaign spec's [feed] table
// (config/campaign_spec.hpp) starts from these, and `warpforge tail` connects to default_endpoint
// when given none; docs/specs.md quotes the values: change both together.
// Dependencies flow one way: config/ reads the feed's defaults, the feed never includes config/.

#include <chrono>
#include <cstdint>
#include <string_view>

namespace warpforge::feed {

/// Where the publisher binds and `warpforge tail` connects unless told otherwise (loopback only).
inline constexpr std::string_view default_endpoint = "tcp://127.0.0.1:5757";
/// Events queued per subscriber before publish() starts dropping [messages].
inline constexpr int default_high_water_mark = 10'000;
/// How long closing the publisher waits to flush queued events to subscribers [ms].
inline constexpr std::chrono::milliseconds default_linger{250};
/// Events a subscriber queues before the publisher has to drop [messages].
inline constexpr int default_subscriber_high_water_mark = 100'000;

// The replay endpoint (replay_server.hpp) binds beside the PUB: the feed's port + 1, or a free port
// when the feed's is; it answers "events since seq N" from the run's store.
/// Between heartbeat events (heartbeat.hpp).
inline constexpr std::chrono::milliseconds default_heartbeat_interval{1000};
/// Without an event or a heartbeat for this long, a monitor calls the campaign silent (5 beats).
inline constexpr std::chrono::milliseconds default_silence{5000};
/// Events per replay reply unless the request asks for fewer [events].
inline constexpr std::uint32_t default_replay_page = 1000;
/// The most events one replay reply carries [events].
inline constexpr std::uint32_t max_replay_page = 10'000;
/// How long a replay request waits for the store to hold its `until` (the store lags the PUB by ms).
inline constexpr std::chrono::milliseconds default_replay_catch_up{2000};
/// How long a monitor waits for a replay reply.
inline constexpr std::chrono::milliseconds default_replay_timeout{5000};

} // namespace warpforge::feed
