#pragma once
// feed: publishes every event on ZeroMQ (topic = event type) and hands it to the store, so a
// monitor that joins late replays from a sequence number. The event itself is feed::event
// (feed/event.hpp, plain data); this header gives it an inspect and declares the interface.

#include "feed/event.hpp"
#include "messages/atoms.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>

namespace warpforge::feed {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event& x) {
  return f(caf::meta::type_name("event"), x.seq, x.ts, x.type, x.campaign, x.job, x.iter,
           x.branch, x.gpu, x.detail_json);
}

} // namespace warpforge::feed

namespace warpforge::messages {

using feed_actor = caf::typed_actor<
  caf::reacts_to<feed::event>,                         // stamp seq and time, persist, publish; never blocks
  caf::replies_to<endpoint_atom>::with<std::string>,   // the endpoint actually bound
  caf::replies_to<wait_atom, std::uint32_t, double>::with<bool>, // ≥ n subscriptions within t seconds?
  caf::reacts_to<stop_atom>,                           // quit after everything queued before
  status_handler>;

} // namespace warpforge::messages
