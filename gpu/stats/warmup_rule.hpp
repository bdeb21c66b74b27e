#pragma once
// When a kernel's warm-up is over: when its recent launch times stop changing, not after a fixed
// number of launches or seconds (docs/measurement.md, "Warm-up").
//
//   warmup_rule rule{policy};
//   while (rule.decision() == warmup_decision::keep_going) {
//     rule.add(time_one_launch_s());
//     rule.set_elapsed(wall_since_start_s());
//   }
//   double estimate_s = rule.recent_median_s();  // sizes the kernel's timing batches
//
// Settled: at least warmup_min_launches and two full windows, and the median of the last
// warmup_window launches within warmup_settle of the median of the window before it. Clock ramps,
// cold TLBs and caches make the first launches slow; a ramp shows as windows that keep moving.
// Host-only; times in seconds, ratios 1.0 = 100%.

#include "gpu/stats/timing_policy.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

enum class warmup_decision : std::uint8_t {
  keep_going, // launch again
  settled,    // the last two windows agree
  launch_cap, // warmup_max_launches reached before settling
  time_cap,   // warmup_max_time_s passed before settling
};
inline constexpr std::array all_warmup_decisions{warmup_decision::keep_going, warmup_decision::settled,
                                                 warmup_decision::launch_cap, warmup_decision::time_cap};
std::string_view to_string(warmup_decision decision);
std::optional<warmup_decision> warmup_decision_from_string(std::string_view text);

class warmup_rule {
public:
  explicit warmup_rule(timing_policy policy);

  /// One warm-up launch's GPU time, seconds.
  void add(double launch_s);
  /// Wall time since the warm-up began, seconds (monotonic).
  void set_elapsed(double wall_s);

  /// A pure function of the launches so far; when several hold, the first in the enum wins.
  warmup_decision decision() const;

  std::size_t launches() const { return times_.size(); }
  /// The median of the last window (of every launch while there are fewer), seconds; 0 when none.
  double recent_median_s() const;

private:
  double window_median(std::size_t end) const; // median of the window ending before `end`

  timing_policy policy_;
  std::vector<double> times_; // seconds
  double wall_s_ = 0.0;
};

} // namespace warpforge::gpu
