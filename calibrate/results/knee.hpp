#pragma once
// Knee detection on a pointer-chase sweep: where the latency moves from one level to the next
// (L1 -> L2 -> DRAM), which gives the cache sizes.
//
//   auto knees = find_knees(curve);          // curve: working-set bytes -> latency cycles
//   double l1_bytes = knees.at(0).x;         // the largest working set still at the L1 level
//
// The curve is split into plateaus: consecutive points within min_step / 2 of the plateau's
// level (its median) share it. A plateau of fewer than `min_plateau_points` points is a
// transition (or a noise spike) and is skipped. Neighbouring plateaus whose levels differ by less
// than min_step are one level; where they differ by min_step or more there is a knee.

#include <cstddef>
#include <vector>

namespace warpforge::calibrate {

struct curve_point {
  double x = 0; // bytes, the working-set size
  double y = 0; // cycles, the latency of one access at that size

  bool operator==(const curve_point&) const = default;
};

struct knee {
  double x = 0;      // bytes: the last working set still on the level before the step
  double before = 0; // cycles: the level before (median of its plateau)
  double after = 0;  // cycles: the level after

  bool operator==(const knee&) const = default;
};

/// Points a level needs to count: fewer are a transition or a spike.
inline constexpr std::size_t min_plateau_points = 2;

/// The level changes of `curve` (any order; sorted by x inside), in increasing x.
/// `min_step`: the smallest change that is a knee, relative to the level before (0.25 = 25%).
std::vector<knee> find_knees(const std::vector<curve_point>& curve, double min_step = 0.25);

} // namespace warpforge::calibrate
