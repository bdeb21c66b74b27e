#include "gpu/check/float16.hpp"

#include <cmath>
#include <limits>

namespace warpforge::gpu {
namespace {

// A binary floating-point format narrower than double: sign, exponent_bits, mantissa_bits.
struct small_format {
  int exponent_bits;
  int mantissa_bits;
  std::uint16_t quiet_nan;

  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  std::uint16_t sign_mask() const { return static_cast<std::uint16_t>(1u << (exponent_bits + mantissa_bits)); }
  std::uint16_t exponent_field_max() const { return static_cast<std::uint16_t>((1u << exponent_bits) - 1); }
};

constexpr small_format f16_format{5, 10, f16_quiet_nan};
constexpr small_format bf16_format{8, 7, bf16_quiet_nan};

double decode(std::uint16_t bits, const small_format& format) {
  const bool negative = (bits & format.sign_mask()) != 0;
  const unsigned exponent = (bits >> format.mantissa_bits) & format.exponent_field_max();
  const unsigned mantissa = bits & ((1u << format.mantissa_bits) - 1);
  double magnitude = 0.0;
  if (exponent == format.exponent_field_max())
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  else if (exponent == 0) // subnormal: mantissa * 2^(1 - bias - mantissa_bits)
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - format.bias() - format.mantissa_bits);
  else
    magnitude = std::ldexp(static_cast<double>(mantissa | (1u << format.mantissa_bits)),
                           static_cast<int>(exponent) - format.bias() - format.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

std::uint16_t encode(double value, const small_format& format) {
  const std::uint16_t sign = std::signbit(value) ? format.sign_mask() : 0;
  if (std::isnan(value))
    return static_cast<std::uint16_t>(sign | format.quiet_nan);
  const std::uint16_t infinity =
    static_cast<std::uint16_t>(sign | (format.exponent_field_max() << format.mantissa_bits));
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return infinity;
  if (magnitude == 0.0)
    return sign;
  const int min_exponent = 1 - format.bias(); // of the smallest normal
  int exponent = std::ilogb(magnitude);       // magnitude in [2^exponent, 2^(exponent+1))
  const std::uint32_t implicit_one = 1u << format.mantissa_bits;
  if (exponent < min_exponent) {
    // Subnormal (or rounds up to the smallest normal, which the same bits encode: field 1, m 0).
    // Scaling by a power of two is exact; nearbyint rounds ties to even in the default mode.
    const double units = std::nearbyint(std::ldexp(magnitude, format.mantissa_bits - min_exponent));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(units));
  }
  auto significand = static_cast<std::uint32_t>(
    std::nearbyint(std::ldexp(magnitude, format.mantissa_bits - exponent)));
  if (significand == implicit_one << 1) { // rounded up to the next power of two
    significand >>= 1;
    ++exponent;
  }
  if (exponent > format.bias())
    return infinity;
  const auto field = static_cast<std::uint32_t>(exponent + format.bias());
  return static_cast<std::uint16_t>(sign | (field << format.mantissa_bits) |
                                    (significand - implicit_one));
}

} // namespace

double f16_to_double(std::uint16_t bits) { return decode(bits, f16_format); }
std::uint16_t double_to_f16(double value) { return encode(value, f16_format); }
double bf16_to_double(std::uint16_t bits) { return decode(bits, bf16_format); }
std::uint16_t double_to_bf16(double value) { return encode(value, bf16_format); }

} // namespace warpforge::gpu
