#include "actors/supervisor.hpp"

#include "actors/emit.hpp"
#include "actors/registry.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/system_messages.hpp>
#include <caf/typed_response_promise.hpp>


namespace warpforge::actors {

restart_decision crash_budget::on_crash(const std::string& child, clock::time_point now) {
  auto& history = crashes_[child];
  const auto window = std::chrono::seconds{policy_.window_s};
  while (!history.empty() && now - history.front() > window)
    history.pop_front();
  history.push_back(now);

  restart_decision decision;
  decision.crashes_in_window = static_cast<std::uint32_t>(history.size());
  if (history.size() > policy_.max_restarts) {
    decision.give_up = true;
    return decision;
  }
  decision.delay = config::backoff_delay(policy_, decision.crashes_in_window - 1);
  return decision;
}

supervisor_state::child* supervisor_state::find(const caf::actor_addr& who) {
  for (auto& c : children)
    if (c.handle && c.handle.address() == who)
      return &c;
  return nullptr;
}

supervisor_state::child* supervisor_state::find(const std::string& child_name) {
  for (auto& c : children)
    if (c.spec.name == child_name)
      return &c;
  return nullptr;
}

messages::supervision_report supervisor_state::report() const {
  messages::supervision_report r;
  for (const auto& c : children)
    r.children.push_back({c.spec.name, c.state, c.last_reason,
                          {{"restarts", static_cast<std::int64_t>(c.restarts)}}});
  r.restarts = restarts;
  r.gave_up = gave_up;
  r.reason = give_up_reason;
  return r;
}

namespace {

using supervisor_pointer = messages::supervisor_actor::stateful_pointer<supervisor_state>;

void start_child(supervisor_pointer self, supervisor_state::child& c) {
  auto& live = *self->state.live_handles;
  std::erase(live, c.handle);
  c.handle = c.spec.spawn(self->system());
  live.push_back(c.handle);
  self->monitor(c.handle);
  self->system().registry().put(registry_key(c.spec.name), c.handle);
  c.state = messages::component_state::running;
}

feed::event supervision_event(feed::event_type type, const std::string& child) {
  feed::event e;
  e.type = type;
  e.detail_json = feed::detail{}.add("actor", child).json();
  return e;
}

// Stops the last running child; the down handler calls again until none runs. One at a time and
// in reverse start order, so a later child (the feed) drains into an earlier one (the store).
// Each child is sent stop_atom as an ordinary message: it quits after everything queued before.
bool stop_next_child(supervisor_pointer self, std::chrono::milliseconds grace) {
  for (auto it = self->state.children.rbegin(); it != self->state.children.rend(); ++it) {
    if (it->handle && it->state != messages::component_state::stopped
        && it->state != messages::component_state::failed) {
      it->state = messages::component_state::stopping;
      caf::anon_send(it->handle, messages::stop_atom::value);
      self->delayed_send(self, grace, messages::stop_atom::value, it->spec.name);
      return true;
    }
  }
  return false;
}

} // namespace

namespace {

// Delivers every stop request's promise and quits (once no child is running).
void finish_stop(supervisor_pointer self) {
  for (auto& p : self->state.stop_promises)
    p.deliver(true);
  self->state.stop_promises.clear();
  self->system().registry().erase(registry_key(supervisor_name));
  self->quit(self->state.gave_up ? caf::exit_reason::user_shutdown : caf::exit_reason::normal);
}

void begin_stop(supervisor_pointer self) {
  self->state.stopping = true;
  if (!stop_next_child(self, self->state.stop_grace))
    finish_stop(self);
}

// More crashes than the budget allows in the window: say so everywhere, then stop everything.
void give_up(supervisor_pointer self, supervisor_state::child& c, const restart_decision& decision) {
  const auto& p = self->state.budget.policy();
  self->state.gave_up = true;
  self->state.give_up_reason = c.spec.name + " crashed " + std::to_string(decision.crashes_in_window) + " times within " +
                               std::to_string(p.window_s) + " s (limit " + std::to_string(p.max_restarts) +
                               "); last: " + c.last_reason;
  logging::get("supervisor")->error("giving up: {}", self->state.give_up_reason);
  auto e = supervision_event(feed::event_type::actor_gave_up, c.spec.name);
  e.detail_json = feed::detail{}
                    .add("actor", c.spec.name)
                    .add("crashes", static_cast<std::int64_t>(decision.crashes_in_window))
                    .add("window_s", static_cast<std::int64_t>(p.window_s))
                    .add("reason", c.last_reason)
                    .json();
  emit(self->system(), std::move(e));
  if (self->state.owner)
    caf::anon_send(self->state.owner,
                   messages::supervision_failed{c.spec.name, decision.crashes_in_window, self->state.give_up_reason});
  begin_stop(self);
}

// A child went down: while stopping, the next one is stopped; a clean exit is left alone; a crash
// is restarted after its back-off, or, past the budget, ends everything.
void on_child_down(supervisor_pointer self, caf::down_msg& msg) {
  auto* c = self->state.find(msg.source);
  if (c == nullptr)
    return;
  self->system().registry().erase(registry_key(c->spec.name));
  const bool clean = !msg.reason || msg.reason == caf::exit_reason::user_shutdown;
  if (self->state.stopping) {
    c->state = clean ? messages::component_state::stopped : messages::component_state::failed;
    if (!clean)
      c->last_reason = to_string(msg.reason);
    if (!stop_next_child(self, self->state.stop_grace))
      finish_stop(self);
    return;
  }
  if (clean) {
    c->state = messages::component_state::stopped;
    return;
  }
  c->state = messages::component_state::failed;
  c->last_reason = to_string(msg.reason);
  auto decision = self->state.budget.on_crash(c->spec.name, clock::now());
  if (decision.give_up)
    return give_up(self, *c, decision);
  logging::get("supervisor")->warn("{} went down ({}); restart {} in {} ms", c->spec.name, c->last_reason,
                                   decision.crashes_in_window, decision.delay.count());
  self->delayed_send(self, decision.delay, messages::restart_atom::value, c->spec.name);
}

void restart(supervisor_pointer self, const std::string& name) {
  auto* c = self->state.find(name);
  if (c == nullptr || self->state.stopping)
    return;
  start_child(self, *c);
  ++c->restarts;
  ++self->state.restarts;
  logging::get("supervisor")->info("restarted {} (restart {})", name, c->restarts);
  feed::event e;
  e.type = feed::event_type::actor_restarted;
  e.detail_json = feed::detail{}
                    .add("actor", name)
                    .add("attempt", static_cast<std::int64_t>(c->restarts))
                    .add("reason", c->last_reason)
                    .json();
  emit(self->system(), std::move(e));
}

} // namespace

messages::supervisor_actor::behavior_type
supervisor(supervisor_pointer self, config::supervision_policy policy,
           std::vector<child_spec> children, caf::actor owner, std::chrono::milliseconds stop_grace) {
  self->state.budget = crash_budget{policy};
  self->state.owner = std::move(owner);
  self->state.stop_grace = stop_grace;
  self->system().registry().put(registry_key(supervisor_name), self);
  for (auto& spec : children) {
    supervisor_state::child c;
    c.spec = std::move(spec);
    self->state.children.push_back(std::move(c));
    start_child(self, self->state.children.back());
    logging::get("supervisor")->info("started {}", self->state.children.back().spec.name);
  }
  // Announced once all are up, so the events reach a feed that is one of the children.
  for (const auto& c : self->state.children)
    emit(self->system(), supervision_event(feed::event_type::actor_started, c.spec.name));
  // However the supervisor ends (stopped, gave up, killed), no child outlives it: an orphan
  // would keep the actor system from shutting down. The functor runs after the state is gone,
  // so it holds its own list of the current handles.
  self->attach_functor([live = self->state.live_handles](const caf::error&) {
    for (auto& h : *live)
      caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([self](caf::down_msg& msg) { on_child_down(self, msg); });
  return {
    [self](messages::status_atom) { return self->state.report(); },
    [self](messages::stop_atom) -> caf::typed_response_promise<bool> {
      auto promise = self->make_response_promise<bool>();
      self->state.stop_promises.push_back(promise);
      if (!self->state.stopping)
        begin_stop(self);
      return promise;
    },
    [self](messages::stop_atom, const std::string& name) {
      auto* c = self->state.find(name);
      if (c != nullptr && c->handle && c->state == messages::component_state::stopping) {
        logging::get("supervisor")->warn("{} did not stop within its grace; killing it", name);
        caf::anon_send_exit(c->handle, caf::exit_reason::kill);
      }
    },
    [self](messages::restart_atom, const std::string& name) { restart(self, name); },
  };
}

} // namespace warpforge::actors
