#pragma once
// Where the dashboard's events come from: the run directory's store first (a finished run, or
// what a live one did before the dashboard started), then the live feed through feed::follower
// (every seq once, gaps replayed). Each change becomes a snapshot (snapshot.hpp) handed to
// `publish`, at most every publish_interval, and at least every second, since the clock and the
// feed's health move on without events. Runs on its own thread; destroying it stops the thread.

#include "feed/dashboard/dashboard_error.hpp"
#include "foundation/expected/expected.hpp"
#include "feed/campaign_view.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace warpforge::dashboard {

/// How often, at most, a changed view becomes a snapshot [ms].
inline constexpr std::chrono::milliseconds default_publish_interval{250};

struct bridge_options {
  std::filesystem::path run_dir{}; // read its store first, and its feed.endpoint / replay.endpoint
                                 // unless given; empty: the live feed only
  std::string endpoint{};        // the feed; empty: the run directory's, else the default
  std::string replay_endpoint{}; // empty: the run directory's, else learnt from heartbeats
  std::chrono::milliseconds publish_interval = default_publish_interval;
  feed::campaign_view_options view{};
};

class bridge {
public:
  /// Reads the store (when a run directory is given) and publishes the first snapshot before it
  /// returns, then follows the feed on its own thread. Fails with bad_source naming the run
  /// directory, its store or the endpoint.
  static expected<bridge, dashboard_error> start(bridge_options options,
                                                 std::function<void(std::string)> publish);

  bridge(bridge&&) noexcept;
  bridge& operator=(bridge&&) noexcept;
  ~bridge();

  /// The feed endpoint followed.
  const std::string& endpoint() const;

private:
  struct impl;
  explicit bridge(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::dashboard
