#pragma once
// A cache's capacity from a sweep of independent references (l2_size's walk,
// calibrate/bench/kernels/l2_walk.cuh), read past the knee instead of at it.
//
//   auto fit = fit_capacity(curve);      // curve: working-set bytes -> cycles per step
//   if (fit) l2_bytes = fit->capacity;   // else fit.error() says why not
//
// When every reference picks a line of the working set (F bytes) uniformly and independently,
// it hits with probability (bytes held) / F. Once the set is large enough that every set of the
// cache is full of it (1.5 capacities with hashed sets of 16 ways, more where sets fill
// unevenly), the bytes held are the capacity C, so
//     cycles(F) = L_miss - (L_miss - L_hit) x C / F,
// a straight line in 1 / F whatever the cache's sets and replacement. The fit: L_hit is the
// median of the sets at most half the onset (find_onset's), else the first level; a
// least-squares line y = a + b / F over the points at least fit_from_onset x the onset, then
// over those at least fit_from_capacity x the capacity found (where the line holds); L_miss = a,
// C = -b / (a - L_hit). The onset itself is where a hashed set-associative cache starts missing
// in its fullest sets, before it is full, so it stays only as the knee's position and sharpness.
//
// What the fit cannot see: bytes held that still grow linearly with the working set are again a
// straight line in 1 / F, with a lower L_miss and a lower C. Only a miss level measured apart
// could tell, and a cold walk's is not the walk's own (on an H100 it read 710-720 cycles against
// the fitted 660: a cold L2 misses more slowly than one in its steady state). So the walks are
// built to reach the steady state before they are timed (walk.cuh: an untimed walk first, the
// list of lines read evict-first), and the refits keep only sizes past twice the capacity.

#include "calibrate/results/knee.hpp"
#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace warpforge::calibrate {

struct capacity_fit {
  double capacity = 0;   // bytes: C
  double hit_level = 0;  // cycles: L_hit, the level of the small sets
  double miss_level = 0; // cycles: L_miss, the fitted latency of a set with no hits (F -> infinity)
  double rms = 0;        // cycles: the residual of the fitted points around the line
  std::size_t points = 0;
  double from = 0, to = 0; // bytes: the fitted working sets
};

/// The first fit takes the points from this multiple of the onset. A walk's onset says little of
/// its capacity (an H100's L2 at 1.1 capacities, its L1 at 0.4), so the refits below decide.
inline constexpr double fit_from_onset = 1.75;
/// Then again over the points at least this multiple of the capacity found, until the points
/// stay the same (at most max_refits times): where sets fill unevenly some are still short at
/// 1.5 capacities, and points there read the capacity low. The fitted points must end up past it.
inline constexpr double fit_from_capacity = 2.0;
inline constexpr std::size_t max_refits = 5;
/// A line: the fit's rms at most this share of L_miss - L_hit (the H100's walks: 0.02-0.23%).
inline constexpr double max_rms_of_span = 0.01;
/// Fewer points cannot tell a line from a curve.
inline constexpr std::size_t min_fit_points = 3;

/// The capacity, or why the curve gives none: no first level or onset, fewer than
/// min_fit_points points past fit_from_onset x the onset, a line that does not fall towards a
/// miss level above the hit level, points that are no line (rms over max_rms_of_span), fewer
/// than min_fit_points points past fit_from_capacity x the capacity.
expected<capacity_fit, std::string> fit_capacity(const std::vector<curve_point>& curve);

/// "capacity 50.1 MiB from the miss line past the knee: ..." (bytes_per_unit: 1 MiB for "MiB").
std::string describe_fit(const capacity_fit& fit, double bytes_per_unit, const std::string& unit);

} // namespace warpforge::calibrate
