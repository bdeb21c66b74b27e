#pragma once
// Every default of the feed's sockets, named, with its unit. The campaign spec's [feed] table
// (config/campaign_spec.hpp) starts from these, and `warpforge tail` connects to default_endpoint
// when given none; docs/specs.md quotes the values: change both together.
// Dependencies flow one way: config/ reads the feed's defaults, the feed never includes config/.

#include <chrono>
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

} // namespace warpforge::feed
