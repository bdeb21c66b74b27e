#include "actors/feed.hpp"

#include "actors/clock.hpp"
#include "actors/exceptions.hpp"
#include "actors/registry.hpp"
#include "feed/endpoint.hpp"
#include "feed/heartbeat.hpp"
#include "foundation/logging/logging.hpp"
#include "messages/store.hpp"

#include <caf/after.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include <fstream>
#include <stdexcept>

namespace warpforge::actors {
namespace {

// How long the feed waits for the store to say where the sequence resumes.
constexpr std::chrono::seconds next_seq_timeout{30};

void write_endpoint_file(const std::filesystem::path& file, const std::string& endpoint) {
  if (file.empty())
    return;
  std::ofstream out{file, std::ios::trunc};
  out << endpoint << '\n';
  if (!out)
    throw std::runtime_error("feed: cannot write " + file.string());
}

} // namespace

void feed_state::bind(const feed_options& options) {
  auto bound = feed::publisher::bind(options.publisher);
  if (!bound)
    throw std::runtime_error("feed: cannot bind " + options.publisher.endpoint + ": "
                             + to_string(bound.error()));
  publisher.emplace(std::move(*bound));
  campaign = options.campaign;
  heartbeat_interval = options.heartbeat_interval;
  write_endpoint_file(options.endpoint_file, publisher->endpoint());

  if (!options.database.empty()) {
    auto endpoint = options.replay_endpoint.empty()
                      ? feed::replay_endpoint_for(options.publisher.endpoint)
                      : expected<std::string, feed::feed_error>{options.replay_endpoint};
    if (!endpoint)
      throw std::runtime_error("feed: no replay endpoint for " + options.publisher.endpoint + ": "
                               + to_string(endpoint.error()));
    feed::replay_server_options replay_options;
    replay_options.endpoint = *endpoint;
    replay_options.allow_remote = options.publisher.allow_remote; // the feed's rule, for both
    replay_options.database = options.database;
    auto started = feed::replay_server::start(replay_options);
    if (!started)
      throw std::runtime_error("feed: cannot bind the replay endpoint " + *endpoint + ": "
                               + to_string(started.error()));
    replay.emplace(std::move(*started));
    write_endpoint_file(options.replay_endpoint_file, replay->endpoint());
  }
  logging::get("feed")->info("publishing on {}, replay on {}", publisher->endpoint(),
                             replay ? replay->endpoint() : std::string{"(none)"});
}

void feed_state::stamp(feed::event& e) {
  e.seq = next_seq++;
  if (e.ts == 0)
    e.ts = unix_now_s();
  if (e.campaign.empty())
    e.campaign = campaign;
  if (e.type == feed::event_type::campaign_started)
    e.detail_json = feed::detail{}
                      .add("feed_endpoint", publisher->endpoint())
                      .add("replay_endpoint", replay_endpoint())
                      .appended_to(e.detail_json);
}

std::string feed_state::replay_endpoint() const {
  return replay ? replay->endpoint() : std::string{};
}

std::optional<feed::event> feed_state::due_heartbeat() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_heartbeat < heartbeat_interval)
    return std::nullopt;
  last_heartbeat = now;
  feed::heartbeat pulse;
  pulse.last_seq = next_seq - 1;
  pulse.interval_s = std::chrono::duration<double>(heartbeat_interval).count();
  pulse.feed_endpoint = publisher->endpoint();
  pulse.replay_endpoint = replay_endpoint();
  pulse.published_total = publisher->published();
  return feed::to_event(pulse, unix_now_s(), campaign);
}

messages::component_status feed_state::status() {
  messages::component_status s;
  s.component = name;
  s.state = publisher->dropped() == 0 ? messages::component_state::running
                                      : messages::component_state::degraded;
  s.detail = publisher->endpoint() + (replay ? ", replay " + replay->endpoint() : "");
  s.counters = {{"published", static_cast<std::int64_t>(publisher->published())},
                {"dropped", static_cast<std::int64_t>(publisher->dropped())},
                {"subscriptions", static_cast<std::int64_t>(publisher->subscription_count())},
                {"next_seq", static_cast<std::int64_t>(next_seq)}};
  if (replay) {
    const auto served = replay->counters();
    s.counters.push_back({"replay_requests", static_cast<std::int64_t>(served.requests)});
    s.counters.push_back({"replay_events", static_cast<std::int64_t>(served.events_served)});
    s.counters.push_back({"replay_refused", static_cast<std::int64_t>(served.refused)});
  }
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
    logging::get("feed")->trace("published seq {} {}", e.seq, feed::to_string(e.type));
  };
  // Heartbeats go out on the PUB socket only: never stored, no seq of their own.
  auto beat = [self] {
    if (auto pulse = self->state.due_heartbeat())
      self->state.publisher->publish(*pulse);
  };

  return {
    [self, deliver, beat](feed::event e) {
      deliver(std::move(e));
      auto& p = *self->state.publisher;
      const auto now = std::chrono::steady_clock::now();
      if (p.dropped_since_report() > 0 && now - self->state.last_drop_report >= drop_report_interval) {
        self->state.last_drop_report = now;
        deliver(p.take_dropped_report(0, 0, self->state.campaign));
      }
      beat(); // a busy feed never idles long enough for the timeout below
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
    // A quiet feed: nothing arrived for a whole interval, so the heartbeat is due now.
    caf::after(options.heartbeat_interval) >> beat,
  };
}

} // namespace warpforge::actors
