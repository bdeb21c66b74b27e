#pragma once
// runtime: one campaign's actor system. Boots the supervisor with the store and the feed (the
// pipeline's other actors join here as they land), offers the few synchronous calls the command
// line needs, and stops everything in order: the feed drains into the store before the store
// closes.

#include "actors/feed.hpp"
#include "config/supervision_policy.hpp"
#include "expected/expected.hpp"
#include "messages/store.hpp"
#include "messages/supervisor.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace warpforge::actors {

/// The actor system configuration every warpforge node uses: our message types registered,
/// CAF's own command-line parsing left out (CLI11 owns argv).
class system_config : public caf::actor_system_config {
public:
  system_config();
};

struct runtime_options {
  std::filesystem::path database;  // the run directory's SQLite file
  feed_options feed;
  config::supervision_policy supervision;
};

/// How long the runtime waits for a synchronous answer from one of its actors.
inline constexpr std::chrono::seconds request_timeout{30};
/// How often start() looks again for a feed that the supervisor is restarting.
inline constexpr std::chrono::milliseconds feed_start_poll{50};
/// How long stop() waits for the actors to drain and quit.
inline constexpr std::chrono::seconds stop_timeout{30};

class runtime {
public:
  /// Boots the system; fails (naming the component) when the store or the feed cannot start.
  static expected<std::unique_ptr<runtime>, std::string> start(runtime_options options);
  ~runtime();

  caf::actor_system& system() { return *system_; }

  expected<std::int64_t, std::string> record(const messages::campaign_record& r);
  expected<std::int64_t, std::string> record(const messages::job_record& r);
  void record(const messages::campaign_state_change& c);
  void record(const messages::job_state_change& c);
  expected<std::int64_t, std::string> record(const messages::iteration_record& r);
  void record(const messages::iteration_update& u);
  expected<std::int64_t, std::string> record(const messages::branch_record& r);
  void record(const messages::branch_outcome_change& c);
  expected<std::int64_t, std::string> record(const messages::measurement_record& r);

  /// Puts an event on the feed (fire and forget; the feed stamps seq and time).
  void emit(feed::event e);

  /// The feed's bound endpoint ("tcp://127.0.0.1:5757").
  const std::string& feed_endpoint() const { return feed_endpoint_; }

  /// Waits until the feed has `subscriptions` subscriptions, at most `timeout`.
  bool wait_for_subscribers(std::uint32_t subscriptions, std::chrono::duration<double> timeout);

  /// The supervisor's report of every component.
  expected<messages::supervision_report, std::string> report();

  /// A supervision failure received so far, without waiting.
  std::optional<messages::supervision_failed> failure();

  /// Drains and stops every actor (feed first, then store). Idempotent.
  void stop();

private:
  runtime() = default;

  std::unique_ptr<system_config> config_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<caf::scoped_actor> self_; // owner of the supervisor: hears supervision_failed
  messages::supervisor_actor supervisor_;
  std::string feed_endpoint_;
  std::optional<messages::supervision_failed> failure_;
  bool stopped_ = false;
};

} // namespace warpforge::actors
