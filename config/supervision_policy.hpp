#pragma once
// How the supervisor restarts a crashed child: as data, from the campaign's [supervision] table.
// Restart n (0-based, counted within the window) waits
//   min(backoff_initial_ms * backoff_factor^n, backoff_max_ms);
// more than max_restarts crashes within window_s escalate (the supervisor gives up on the child).

#include "config/defaults.hpp"

#include <chrono>
#include <cstdint>

namespace warpforge::config {

struct supervision_policy {
  std::uint32_t max_restarts = defaults::max_restarts;             // per window; then escalate
  std::uint32_t window_s = defaults::restart_window_s;             // seconds
  std::uint32_t backoff_initial_ms = defaults::backoff_initial_ms; // milliseconds, > 0
  double backoff_factor = defaults::backoff_factor;                // >= 1.0
  std::uint32_t backoff_max_ms = defaults::backoff_max_ms;         // milliseconds, >= initial

  bool operator==(const supervision_policy&) const = default;
};

/// The wait before restart number `restart` (0-based, within the current window).
std::chrono::milliseconds backoff_delay(const supervision_policy& policy, std::uint32_t restart);

} // namespace warpforge::config
