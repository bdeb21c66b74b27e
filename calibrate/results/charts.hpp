#pragma once
// The charts of a calibrate run, as standalone SVG text (no plotting dependency):
//   latency_curve_svg  a pointer-chase sweep: latency (cycles) against working-set size (bytes,
//                      log scale), every point, the knees find_knees() sees marked and labelled
//   cv_chart_svg       the CV of every timed parameter as a bar, with the 2% target and the 5%
//                      PASS limit drawn; bars of passing parameters in green, others in red
// Each point and bar carries a <title> with its numbers, so a browser shows them on hover.

#include "calibrate/results/parameter_result.hpp"

#include <string>
#include <vector>

namespace warpforge::calibrate {

std::string latency_curve_svg(const parameter_result& result);
std::string cv_chart_svg(const std::vector<parameter_result>& results);

/// 262144 -> "256 KiB", 52428800 -> "50 MiB", 1000 -> "1000 B": how the charts name sizes.
std::string format_bytes(double bytes);

} // namespace warpforge::calibrate
