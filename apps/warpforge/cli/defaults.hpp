#pragma once
// Bounds of the command line itself (each with its unit), in one place.

#include <chrono>

namespace warpforge::cli {

/// How long `warpforge tail` and its feed wait for a first event or heartbeat before saying that
/// nothing answers at the endpoint (a running campaign's feed beats every second,
/// feed::default_heartbeat_interval). `--wait-for-feed 0` waits for ever.
inline constexpr std::chrono::seconds feed_answer_wait{10};

} // namespace warpforge::cli
