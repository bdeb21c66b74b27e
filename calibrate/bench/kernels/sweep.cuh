#pragma once
// A working-set sweep for a cache's size: the latency of one SM's warmed pointer-chase ring at
// each size (kernels/chase.cuh), printed as curve lines (curve_x = bytes, curve_y = cycles per step).
// The engine's knee detection (calibrate/results/knee.hpp) decides the size from the curve; the
// program's own value is a first estimate: the largest working set whose latency stays within
// `hit_tolerance` of the smallest one's.

#include "chase.cuh"

constexpr double wf_hit_tolerance = 0.10; // 10% over the smallest working set's latency

// A sweep's first estimate, fed its points in increasing size: the largest working set whose
// latency stays within wf_hit_tolerance of the first one's, before any larger one leaves it.
struct wf_first_estimate {
  double first = 0, bytes = 0;
  bool missed = false;
  void add(double point_bytes, double cycles) {
    if (first == 0)
      first = cycles;
    if (!missed && cycles <= first * (1 + wf_hit_tolerance))
      bytes = point_bytes;
    else
      missed = true;
  }
};

template <bool CacheAll>
static void wf_size_sweep(const std::vector<std::size_t>& sizes_bytes, int steps,
                          double value_unit_bytes) {
  std::vector<wf_window> windows;
  wf_first_estimate estimate;
  for (const std::size_t bytes : sizes_bytes) {
    const wf_chase_result r = wf_chase_working_set<CacheAll>(bytes, steps);
    windows.push_back(r.window);
    wf_print_curve_point(static_cast<double>(bytes), r.cycles_per_step);
    estimate.add(static_cast<double>(bytes), r.cycles_per_step);
  }
  if (!estimate.missed)
    wf_fail("no working set of the sweep fell out of the cache");
  wf_print_result(estimate.bytes / value_unit_bytes, wf_clock_mhz(windows));
}
