#include "foundation/vocabulary/number_text.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace warpforge::vocabulary {
namespace {

constexpr int significant_digits = 3;

struct unit {
  double scale; // value of one unit in the base unit
  std::string_view name;
};

// NaN and infinity are not measurements: written as what they are, without a unit.
std::string non_finite_text(double value) {
  if (std::isnan(value))
    return "NaN";
  return value > 0 ? "inf" : "-inf";
}

// `value` rounded to 3 significant digits, so the unit is chosen on what will be printed.
double rounded(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*e", significant_digits - 1, value);
  return std::strtod(text, nullptr);
}

// `value` (already in its unit) with 3 significant digits: 776, 13.3, 1.33;
// numbers of 1000 or more (the largest unit) print their rounded integer: 1230.
std::string with_three_digits(double value) {
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : magnitude >= 0.9995 ? 2 : 3;
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// `value` in the largest unit of `units` (largest first) that keeps it >= 1, else the last one.
template <std::size_t N>
std::string in_units(double value, const std::array<unit, N>& units) {
  if (!std::isfinite(value))
    return non_finite_text(value);
  const double r = rounded(value);
  const unit* chosen = &units.back();
  for (const auto& candidate : units)
    if (std::fabs(r) >= candidate.scale) {
      chosen = &candidate;
      break;
    }
  return with_three_digits(r / chosen->scale) + " " + std::string{chosen->name};
}

constexpr std::array<unit, 4> time_units{{{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}};

template <std::size_t N>
std::array<unit, N> rate_units(const std::array<std::string_view, N>& names) {
  std::array<unit, N> units{};
  double scale = std::pow(1e3, static_cast<double>(N - 1));
  for (std::size_t i = 0; i < N; ++i, scale /= 1e3)
    units[i] = {scale, names[i]};
  return units;
}

} // namespace

std::string time_text(double seconds) {
  if (seconds == 0)
    return "0 s";
  return in_units(seconds, time_units);
}

std::string speedup_text(double ratio) {
  if (!std::isfinite(ratio))
    return non_finite_text(ratio);
  char text[48];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

std::string fraction_text(double ratio) {
  if (!std::isfinite(ratio))
    return non_finite_text(ratio);
  char text[48];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return text;
}

std::string bandwidth_text(double bytes_per_s) {
  static const auto units = rate_units<6>({"PB/s", "TB/s", "GB/s", "MB/s", "kB/s", "B/s"});
  if (bytes_per_s == 0)
    return "0 B/s";
  return in_units(bytes_per_s, units);
}

std::string flop_rate_text(double flop_per_s) {
  static const auto units = rate_units<6>({"PFLOP/s", "TFLOP/s", "GFLOP/s", "MFLOP/s", "kFLOP/s", "FLOP/s"});
  if (flop_per_s == 0)
    return "0 FLOP/s";
  return in_units(flop_per_s, units);
}

std::string count_text(std::uint64_t count) { return std::to_string(count); }

} // namespace warpforge::vocabulary
