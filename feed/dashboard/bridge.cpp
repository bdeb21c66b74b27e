#include "feed/dashboard/bridge.hpp"

#include "feed/defaults.hpp"
#include "feed/dashboard/snapshot.hpp"
#include "feed/endpoint.hpp"
#include "feed/event_json.hpp"
#include "feed/follower.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <atomic>
#include <thread>

namespace warpforge::dashboard {
namespace {

using clock = std::chrono::steady_clock;

// How long one wait for the next event lasts, so a stop is seen promptly.
constexpr std::chrono::milliseconds event_wait{100};
// The snapshot shows elapsed time and the feed's health: publish at least this often.
constexpr std::chrono::seconds clock_tick{1};
// Events read from the store per query.
constexpr std::int64_t store_page = 1000;

unexpected<dashboard_error> fail(std::string_view place, storage::store_error error) {
  auto message = storage::to_string(error);
  return unexpected{dashboard_error{dashboard_errc::bad_source, std::string{place}, std::move(message), std::move(error)}};
}

unexpected<dashboard_error> fail(const std::string& endpoint, feed::feed_error error) {
  auto message = feed::to_string(error);
  return unexpected{dashboard_error{dashboard_errc::bad_source, endpoint, std::move(message), std::move(error)}};
}

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace

struct bridge::impl {
  bridge_options options;
  std::function<void(std::string)> publish;
  feed::campaign_view view;
  std::optional<feed::follower> follower;
  std::string source;
  std::atomic<bool> stopping{false};
  std::thread thread;

  ~impl() {
    stopping = true;
    if (thread.joinable())
      thread.join();
  }

  void publish_now() {
    snapshot_context context;
    context.now_ts = unix_now_s();
    context.source = source;
    context.feed_endpoint = options.endpoint;
    if (follower) {
      context.replay_endpoint = follower->replay_endpoint();
      context.feed_health = std::string{feed::to_string(follower->health())};
      context.silent_s = follower->silent_for_s();
      context.missed = follower->missed();
    }
    publish(snapshot_json(view, context));
  }

  /// Applies the stored events; fails naming the run directory or its store.
  expected<void, dashboard_error> read_store() {
    auto dir = storage::run_directory::open(options.run_dir);
    if (!dir)
      return fail("run_dir", dir.error());
    auto db = storage::database::open_read_only(dir->database_path());
    if (!db)
      return fail("store", db.error());
    for (std::int64_t after = 0;;) {
      auto rows = db->events_since(after, store_page);
      if (!rows)
        return fail("store", rows.error());
      for (const auto& row : *rows) {
        after = row.seq;
        if (auto e = feed::decode(row.json))
          view.apply(*e); // an event this build cannot read is left out, as tail does
      }
      if (rows->size() < static_cast<std::size_t>(store_page))
        break;
    }
    if (options.endpoint.empty())
      options.endpoint = feed::read_endpoint_file(dir->feed_endpoint_path());
    if (options.replay_endpoint.empty())
      options.replay_endpoint = feed::read_endpoint_file(dir->replay_endpoint_path());
    return {};
  }

  void follow() {
    auto last_publish = clock::now();
    bool changed = false;
    while (!stopping) {
      auto next = follower->next(event_wait);
      if (next && *next)
        changed = view.apply((**next).decoded) || changed;
      const auto now = clock::now();
      if ((changed && now - last_publish >= options.publish_interval) || now - last_publish >= clock_tick) {
        publish_now();
        last_publish = now;
        changed = false;
      }
    }
  }
};

bridge::bridge(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
bridge::bridge(bridge&&) noexcept = default;
bridge& bridge::operator=(bridge&&) noexcept = default;
bridge::~bridge() = default;

expected<bridge, dashboard_error> bridge::start(bridge_options options,
                                                std::function<void(std::string)> publish) {
  auto state = std::make_unique<impl>();
  state->view = feed::campaign_view{options.view};
  state->options = std::move(options);
  state->publish = std::move(publish);
  state->source = state->options.run_dir.empty() ? "feed" : "run_dir";
  if (!state->options.run_dir.empty())
    if (auto read = state->read_store(); !read)
      return unexpected{read.error()};
  if (state->options.endpoint.empty())
    state->options.endpoint = std::string{feed::default_endpoint};

  feed::follower_options follow;
  follow.endpoint = state->options.endpoint;
  follow.replay_endpoint = state->options.replay_endpoint;
  // After the store only the seam can be missing, and the feed's next heartbeat shows it; from
  // the feed alone, everything since the first event is replayed.
  follow.after_seq = state->view.last_seq().value_or(0);
  follow.replay_at_start = state->options.run_dir.empty();
  auto follower = feed::follower::connect(follow);
  if (!follower)
    return fail(state->options.endpoint, follower.error());
  state->follower.emplace(std::move(*follower));
  state->publish_now();
  state->thread = std::thread{[raw = state.get()] { raw->follow(); }};
  return bridge{std::move(state)};
}

const std::string& bridge::endpoint() const {
  return impl_->options.endpoint;
}

} // namespace warpforge::dashboard
