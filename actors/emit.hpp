#pragma once
// How any actor (or the command line) puts an event on the feed: fire-and-forget to whatever
// feed actor is registered now. The feed stamps seq and time, persists and publishes.

#include "feed/event.hpp"

#include <caf/actor_system.hpp>

namespace warpforge::actors {

/// Sends `e` to the registered feed; returns false (and logs) when no feed is running.
bool emit(caf::actor_system& system, feed::event e);

} // namespace warpforge::actors
