#pragma once
// How a race is timed (docs/measurement.md, "Timing"): the warm-up that ends when times settle,
// the interleaved rounds, and when sampling stops. Plain data, carried in the run_race body;
// every field's unit is in its comment and its default is documented in docs/measurement.md.
//
//   timing_policy policy;               // the defaults: 0.5% CI half-width, 5 rounds at least
//   policy.ci_target = 0.002;           // a tighter claim, at a higher cost

#include <cstddef>
#include <cstdint>

namespace warpforge::gpu {

struct timing_policy {
  // ---- warm-up: per kernel, until its times stop changing (gpu/stats/warmup_rule.hpp) ----
  std::uint32_t warmup_window = 5;        // launches per window: the last window's median is
                                          // compared with the one before
  double warmup_settle = 0.01;            // ratio, 0.01 = 1%: settled when the two medians differ
                                          // by at most this share of the earlier one
  std::uint32_t warmup_min_launches = 10; // launches, at least (two windows)
  std::uint32_t warmup_max_launches = 1000; // launches, at most
  double warmup_max_time_s = 1.0;         // seconds of wall time, at most

  // ---- rounds: every kernel of the race gets a batch of samples per round, in turn ----
  double batch_time_s = 0.005;            // seconds of GPU time a kernel's batch aims at
                                          // (batch = this / the kernel's settled time)
  std::uint32_t max_batch_samples = 100;  // samples per batch, at most (at least 1)

  // ---- stopping (gpu/stats/stopping_rule.hpp) ----
  double ci_target = 0.005;               // ratio, 0.005 = 0.5%: the largest half-width of the
                                          // reported 95% CI of each kernel's median, relative to it
  std::uint32_t min_rounds = 5;           // rounds before any stop but the budget
  std::size_t min_samples = 10;           // samples per kernel before any stop but the budget
  double max_time_s = 3.0;                // seconds of timing wall time per kernel of the race:
                                          // the rounds stop at kernels x this
  std::size_t max_samples = 20000;        // samples of one kernel at most: the rounds stop when a
                                          // kernel has them (bounds memory and the statistics' cost)

  bool operator==(const timing_policy&) const = default;
};

} // namespace warpforge::gpu
