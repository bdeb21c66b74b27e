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
#include <optional>
#include <string>
#include <string_view>
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

/// The median of a level's latencies (the mean of the middle two for an even count); `values`
/// not empty.
double median(std::vector<double> values);

/// Bytes in one unit of a cache size ("KiB" 1024, "MiB" 1048576); 0 for any other unit.
double bytes_per_size_unit(std::string_view unit);

/// Points a level needs to count: fewer are a transition or a spike.
inline constexpr std::size_t min_plateau_points = 2;

/// The level changes of `curve` (any order; sorted by x inside), in increasing x.
/// `min_step`: the smallest change that is a knee, relative to the level before (0.25 = 25%).
std::vector<knee> find_knees(const std::vector<curve_point>& curve, double min_step = 0.25);

/// Where a sweep leaves the level of its smallest working sets for good: the cache's capacity.
/// Every size sweep starts inside the cache it measures, so its first level is that cache's
/// latency; the capacity is the last working set within `onset_tolerance` of that level with
/// every larger one above it (a spike that comes back does not end the level). The width says
/// how sharp the knee is: from the capacity to the first working set 90% of the way up to the
/// curve's highest point past it.
struct knee_onset {
  double x = 0;     // bytes: the capacity, the last working set on the first level
  double level = 0; // cycles: the first level (median of the first plateau)
  double top = 0;   // cycles: the highest latency past x
  double x_90 = 0;  // bytes: the first working set past x at level + 90% of (top - level)
};

/// 5%: the curves are means over thousands of steps, flat to about 1% on a level.
inline constexpr double onset_tolerance = 0.05;

/// nullopt: fewer than two points on a first level, or the curve never leaves it.
std::optional<knee_onset> find_onset(const std::vector<curve_point>& curve,
                                     double tolerance = onset_tolerance);

/// One line for a report, sizes in `unit` (bytes per unit): "knee at 50 MiB: the last size
/// within 5% of the 277-cycle level; 90% of the way to 601 cycles by 64 MiB (14 MiB wide, 28% of
/// the size)".
std::string describe_onset(const knee_onset& onset, double bytes_per_unit, const std::string& unit);

} // namespace warpforge::calibrate
