#pragma once
// Times and ratios as the tuner's one-line notes write them (attempt memory, attribution).
//
//   format_seconds(1.2345e-3)   // "1.234 ms"
//   format_percent(0.1234)      // "12.3%"

#include <string>

namespace warpforge::tuning {

/// Seconds with a unit chosen by size: "1.500 s", "0.812 ms" (from 0.1 ms), "12.5 us".
std::string format_seconds(double seconds);
/// A ratio (1.0 = 100%) as a percentage with one decimal: "12.3%", "-4.0%".
std::string format_percent(double ratio);

} // namespace warpforge::tuning
