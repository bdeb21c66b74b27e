#pragma once
// What the dashboard page draws: a campaign_view as one JSON object, sent whole on every change
// (a few kilobytes: the page never has to merge deltas, and a page opened late is complete at
// once). docs/dashboard.md lists every member; `snapshot` is its version.
//
//   {"snapshot":1,"now":1764018012.5,"source":"feed","feed":{"endpoint":...,"health":"live"},
//    "last_seq":123,"campaign":{"name":"nightly","state":"running","elapsed_s":12.0,...},
//    "totals":{...},"jobs":[...],"gpus":[...],"recent":[...],"problems":[...]}

#include "feed/campaign_view.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::dashboard {

/// Version of the snapshot's members; bumped when one is renamed, removed or changes meaning.
inline constexpr int snapshot_version = 1;

/// What the snapshot says besides the events.
struct snapshot_context {
  double now_ts = 0.0;           // the time elapsed and busy shares are measured to, unix [s]
  std::string source;            // "feed" (live) or "run_dir" (the store, then the feed if alive)
  std::string feed_endpoint;     // where the events come from; empty: the store only
  std::string replay_endpoint;   // the replay endpoint in use; empty: none known
  std::string feed_health;       // feed::feed_health as text ("waiting", "live", "silent")
  std::optional<double> silent_s; // seconds since the feed was last heard; nullopt: never heard
  std::uint64_t missed = 0;      // events the follower could not replay
};

/// Significant digits a float in an event's text is shown with on the page ("cv=0.00114", not
/// "cv=0.0011397195372841694"); the stored event keeps every digit.
inline constexpr int display_significant_digits = 4;

/// `value` with display_significant_digits ("0.00114", "1.235e-05"). The one place to swap for
/// a unit-aware formatter (foundation/vocabulary/number_text.hpp) once events carry their units.
std::string display_number(double value);

/// `text` with every stand-alone decimal number of more digits than that rounded by
/// display_number; integers, versions, addresses and names are left as they are.
std::string display_numbers(std::string_view text);

/// The snapshot as one line of JSON.
std::string snapshot_json(const feed::campaign_view& view, const snapshot_context& context);

} // namespace warpforge::dashboard
