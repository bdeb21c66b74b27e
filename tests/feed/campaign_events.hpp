#pragma once
// Events of a campaign called "nightly" as the feed numbers them: seq as given, one second apart
// from 2025-11-24 21:00:00 UTC. Shared by the tests of the views that read a campaign's events
// (campaign_view, tail_view, progress_view, the dashboard's snapshot).

#include "feed/event.hpp"

#include <cstdint>
#include <string>

namespace warpforge::feed::testing {

inline constexpr double campaign_start_ts = 1764018000.0; // 2025-11-24 21:00:00 UTC [s]

inline event campaign_event(std::uint64_t seq, event_type type, std::string job = {}, std::int64_t iter = no_iter,
                            std::int64_t branch = no_branch, int gpu = no_gpu, std::string detail_json = "{}") {
  event e;
  e.seq = seq;
  e.ts = campaign_start_ts + static_cast<double>(seq);
  e.type = type;
  e.campaign = "nightly";
  e.job = std::move(job);
  e.iter = iter;
  e.branch = branch;
  e.gpu = gpu;
  e.detail_json = std::move(detail_json);
  return e;
}

} // namespace warpforge::feed::testing
