#include "actors/feed.hpp"

#include "actors/clock.hpp"
#include "actors/exceptions.hpp"
#include "actors/registry.hpp"
#include "logging/logging.hpp"
#include "messages/store.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include <fstream>
#include <stdexcept>

namespace warpforge::actors {
namespace {

// How long the feed waits for the store to say where the sequence resumes.
constexpr std::chrono::seconds next_seq_timeout{30};

} // namespace

void feed_state::bind(const feed_options& options) {
  auto bound = feed::publisher::bind(options.publisher);
  if (!bound)
    throw std::runtime_error("feed: cannot bind " + options.publisher.endpoint + ": "
                             + to_string(bound.error()));
  publisher.emplace(std::move(*bound));
  campaign = options.campaign;
  if (!options.endpoint_file.empty()) {
    std::ofstream out{options.endpoint_file, std::ios::trunc};
    out << publisher->endpoint() << '\n';
    if (!out)
      throw std::runtime_error("feed: cannot write " + options.endpoint_file.string());
  }
  logging::get("feed")->info("publishing on {}", publisher->endpoint());
}

void feed_state::stamp(feed::event& e) {
  e.seq = next_seq++;
  if (e.ts == 0)
    e.ts = unix_now_s();
  if (e.campaign.empty())
    e.campaign = campaign;
}

messages::component_status feed_state::status() {
  messages::component_status s;
  s.component = name;
  s.state = publisher->dropped() == 0 ? messages::component_state::running
                                      : messages::component_state::degraded;
  s.detail = publisher->endpoint();
  s.counters = {{"published", static_cast<std::int64_t>(publisher->published())},
                {"dropped", static_cast<std::int64_t>(publisher->dropped())},
                {"subscriptions", static_cast<std::int64_t>(publisher->subscription_count())},
                {"next_seq", static_cast<std::int64_t>(next_seq)}};
  return s;
}

messages::feed_actor::behavior_type
feed(messages::feed_actor::stateful_pointer<feed_state> self, feed_options options) {
  keep_exception_text(self);
  self->state.bind(options);

  // Resume the sequence where the store left it (after a restart of the feed, or on resume),
  // before handling any event: await holds other messages back until the answer comes.
  auto store = lookup<messages::store_actor>(self->system(), store_name);
  if (store) {
    self->request(store, next_seq_timeout, messages::next_seq_atom::value)
      .await([self](std::int64_t next) { self->state.next_seq = static_cast<std::uint64_t>(next); },
             [self](caf::error& err) {
               logging::get("feed")->error("store did not give the next seq: {}",
                                           self->system().render(err));
               self->quit(err);
             });
  }

  auto deliver = [self](feed::event e) {
    self->state.stamp(e);
    if (auto s = lookup<messages::store_actor>(self->system(), store_name))
      caf::anon_send(s, e);
    self->state.publisher->publish(e);
  };

  return {
    [self, deliver](feed::event e) {
      deliver(std::move(e));
      auto& p = *self->state.publisher;
      const auto now = std::chrono::steady_clock::now();
      if (p.dropped_since_report() > 0 && now - self->state.last_drop_report >= drop_report_interval) {
        self->state.last_drop_report = now;
        deliver(p.take_dropped_report(0, 0, self->state.campaign));
      }
    },
    [self](messages::endpoint_atom) { return self->state.publisher->endpoint(); },
    [self](messages::wait_atom, std::uint32_t subscriptions, double timeout_s) {
      // Blocks this (detached) actor: only used before a campaign's first event.
      const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double>(timeout_s));
      return self->state.publisher->wait_for_subscriptions(subscriptions, timeout);
    },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
