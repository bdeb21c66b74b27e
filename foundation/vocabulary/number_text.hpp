#pragma once
// One way to write each measured quantity for people, shared by every view (the terminal, `warpforge
// status`, `warpforge report`, the dashboard snapshot's display fields), so the same time reads the
// same everywhere:
//   time_text(7.76e-4)        // "776 us"   3 significant digits, unit ns, us, ms or s
//   time_text(1.3300e-3)      // "1.33 ms"
//   speedup_text(5.5555)      // "5.56x"    2 decimals (1.00x is the baseline)
//   fraction_text(0.4521)     // "45.2%"    1 decimal (1.0 = 100 %)
//   bandwidth_text(2.93e12)   // "2.93 TB/s" 3 significant digits, decimal prefixes k M G T P
//   flop_rate_text(6.7e13)    // "67.0 TFLOP/s"
//   count_text(1234567)       // "1234567"  plain digits: exact, greppable, no locale
// Edge values: 0 reads "0 s", "0.00x", "0.0%", "0 B/s" (a number like any other). NaN and infinity
// are not measurements: they read "NaN", "inf", "-inf" (with no unit), so a broken value shows as
// broken. A figure nobody measured is never passed here: the views keep it absent and write
// "not measured" with its reason.

#include <cstdint>
#include <string>

namespace warpforge::vocabulary {

/// A duration [s] with 3 significant digits in the largest of s, ms, us, ns that keeps the number
/// >= 1 after rounding (999.9 us reads "1.00 ms"); below 1 ns in ns ("0.500 ns").
std::string time_text(double seconds);
/// A ratio of times (baseline / candidate) with 2 decimals and "x": "5.56x", "0.98x".
std::string speedup_text(double ratio);
/// A fraction (1.0 = 100 %) with 1 decimal and "%": "45.2%", "100.0%".
std::string fraction_text(double ratio);
/// Bytes per second with 3 significant digits and a decimal prefix: "2.93 TB/s", "512 B/s".
std::string bandwidth_text(double bytes_per_s);
/// Floating-point operations per second, like bandwidth_text: "67.0 TFLOP/s".
std::string flop_rate_text(double flop_per_s);
/// A count in plain digits: "1234567".
std::string count_text(std::uint64_t count);

} // namespace warpforge::vocabulary
