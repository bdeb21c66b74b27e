#pragma once
// A working-set sweep for a cache's size: the latency of one SM's warmed pointer-chase ring at
// each size (kernels/chase.cuh), printed as curve lines (curve_x = bytes, curve_y = cycles per step).
// The engine's knee detection (calibrate/results/knee.hpp) decides the size from the curve; the
// program's own value is a first estimate: the largest working set whose latency stays within
// `hit_tolerance` of the smallest one's.

#include "chase.cuh"

constexpr double wf_hit_tolerance = 0.10; // 10% over the smallest working set's latency

template <bool CacheAll>
static void wf_size_sweep(const std::vector<std::size_t>& sizes_bytes, int steps,
                          double value_unit_bytes) {
  std::vector<wf_window> windows;
  double first = 0, estimate = 0;
  bool missed = false;
  for (const std::size_t bytes : sizes_bytes) {
    const wf_chase_result r = wf_chase_working_set<CacheAll>(bytes, steps);
    windows.push_back(r.window);
    wf_print_curve_point(static_cast<double>(bytes), r.cycles_per_step);
    if (first == 0)
      first = r.cycles_per_step;
    if (!missed && r.cycles_per_step <= first * (1 + wf_hit_tolerance))
      estimate = static_cast<double>(bytes);
    else
      missed = true;
  }
  if (!missed)
    wf_fail("no working set of the sweep fell out of the cache");
  wf_print_result(estimate / value_unit_bytes, wf_clock_mhz(windows));
}
