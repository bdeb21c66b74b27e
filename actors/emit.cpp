#include "actors/emit.hpp"

#include "actors/registry.hpp"
#include "foundation/logging/logging.hpp"
#include "messages/feed.hpp"

#include <caf/send.hpp>

namespace warpforge::actors {

bool emit(caf::actor_system& system, feed::event e) {
  auto feed = lookup<messages::feed_actor>(system, feed_name);
  if (!feed) {
    logging::get("feed")->warn("no feed running; event {} not published", to_string(e.type));
    return false;
  }
  caf::anon_send(feed, std::move(e));
  return true;
}

} // namespace warpforge::actors
