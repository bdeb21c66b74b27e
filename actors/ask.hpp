#pragma once
// Requests that survive their receiver's crash. The scheduler and the campaign actor send every
// order this way: to the actor registered under a name *now*, watched while the answer is out.
// When the answer is an error (the receiver died with the request in its mailbox), or the receiver
// goes down while it holds the request (a response promise dies without an answer), the request
// is queued to be sent again, to whatever actor the supervisor has registered under that name by
// then. The receivers are pure or idempotent (actors/README.md), so a request answered twice does
// no harm: the engine ignores an answer for a ticket it no longer holds.
//
//   struct my_state { pending_asks asks; ... };
//   ask<messages::store_actor, std::int64_t>(self, self->state.asks, "store", record, [](std::int64_t id) {...});
//   self->set_down_handler([self](caf::down_msg& m) { self->state.asks.receiver_down(m.source); });
//   on a tick: self->state.asks.send_due();

#include "actors/registry.hpp"

#include <caf/actor_addr.hpp>
#include <caf/error.hpp>

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>

namespace warpforge::actors {

class pending_asks {
public:
  /// Requests waiting to be sent again.
  bool any_due() const { return !due_.empty(); }
  /// Sends every request that is due (each registers itself again as it goes out), and forgets
  /// the answered ones.
  void send_due() {
    std::erase_if(out_, [](const auto& entry) { return *entry.second.answered; });
    for (auto due = std::exchange(due_, {}); !due.empty(); due.pop_front())
      due.front()();
  }
  /// The receiver at `who` is gone: whatever it had not answered is due again.
  void receiver_down(const caf::actor_addr& who) {
    watched_.erase(who);
    auto [begin, end] = out_.equal_range(who);
    for (auto it = begin; it != end; ++it)
      if (!std::exchange(*it->second.answered, true))
        due_.push_back(it->second.again);
    out_.erase(begin, end);
  }

  struct outstanding {
    std::shared_ptr<bool> answered;
    std::function<void()> again;
  };
  void sent(const caf::actor_addr& to, outstanding o) { out_.emplace(to, std::move(o)); }
  void due(std::function<void()> again) { due_.push_back(std::move(again)); }
  /// True the first time `who` is seen (until it goes down): monitor it then, once. A monitor per
  /// request would pile up on the receiver, one attachment per order for the campaign's life.
  bool watch(const caf::actor_addr& who) { return watched_.insert(who).second; }

private:
  std::multimap<caf::actor_addr, outstanding> out_;
  std::deque<std::function<void()>> due_;
  std::set<caf::actor_addr> watched_; // monitored receivers, alive as far as we know
};

/// Sends `request` to the actor registered as `name` and hands its answer to `then`; see above.
template <class Handle, class Reply, class Self, class Request, class Then>
void ask(Self self, pending_asks& asks, std::string name, Request request, Then then) {
  auto again = [self, &asks, name, request, then] { ask<Handle, Reply>(self, asks, name, request, then); };
  auto handle = lookup<Handle>(self->system(), name);
  if (!handle) {
    asks.due(again);
    return;
  }
  auto answered = std::make_shared<bool>(false);
  if (asks.watch(handle.address()))
    self->monitor(handle);
  asks.sent(handle.address(), {answered, again});
  self->request(handle, caf::infinite, request)
    .then([answered, then](Reply& answer) {
            if (std::exchange(*answered, true))
              return;
            then(answer);
          },
          [answered, &asks, again](caf::error&) {
            if (!std::exchange(*answered, true))
              asks.due(again);
          });
}

} // namespace warpforge::actors
