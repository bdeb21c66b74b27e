#pragma once
// The seeded input generator and the element codecs (f16, bf16, f32 rounding from double), one
// implementation for the host and the device. The host's fill_input (input_fill.hpp) and the
// runner's device fill kernel (gpu/runtime/check_kernels.cu) both call generate_bits, so their
// bytes agree by construction; gpu_runner_device_tests checks it byte for byte.
//
//   fill_plan plan = ...;                       // made on the host (input_fill.cpp: make_fill_plan)
//   for (uint64 i = 0; i < n; ++i) store(i, generate_bits(plan, i));   // or one thread per i
//
// Two compilers, one result:
//   - host: C++20 (gpu/check/*.cpp), built with -ffp-contract=off (gpu/host.cmake);
//   - device: C++17 under NVRTC with -fmad=false (gpu/runtime/check_module.cpp). The device path
//     includes no header at all (NVRTC has no standard library).
// Every floating-point step is an IEEE basic operation (+ - * /, sqrt, conversions) in double,
// correctly rounded on both sides and never contracted into an FMA, so host and device produce
// the same bits. That is why `normal` does not call libm: its logarithm and cosine are the
// polynomials below, built only from those operations.
//
// The formulas (stable: changing them changes every campaign's inputs; docs/measurement.md):
//   key      = splitmix64_mix(seed ^ splitmix64_mix(arg + golden))     golden = 0x9E3779B97F4A7C15
//   draw(c)  = splitmix64_mix(key + (c + 1) * golden)                  (counter-based SplitMix64)
//   unit(c)  = (draw(c) >> 11) * 2^-53                                 in [0, 1), 53 bits
//   uniform  float: low + unit(i) * (high - low), rounded to the dtype (to nearest, ties to even),
//            then kept inside [low, high) (a value rounded to `high` or beyond steps down one
//            representable value, one below `low` steps up);
//            integer: lowest + (draw(i) * span) >> 64 (multiply-shift; bias < span / 2^64).
//   normal   Box-Muller on counters 2i and 2i+1: mean + stddev * (r * cos(2 pi u2)),
//            r = sqrt(-2 ln(1 - u1)), with ln and cos from natural_log and cos_two_pi below
//            (accurate to about 1e-16, not libm's bits); rounded to the dtype (integers: to
//            nearest even, saturated to the dtype's range). Changed once (2026-12) from libm's
//            log1p and cos, so that the device can reproduce it.
//   constant the value's bits (plan.bits, computed once); zeros, ones likewise.
//   iota     element i = i: integers wrap modulo 2^bits; floats are i rounded to the dtype.

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define WARPFORGE_HD __host__ __device__
#else
#define WARPFORGE_HD
#include <bit>
#include <cmath>
#endif

namespace warpforge::gpu::generator {

using uint16 = unsigned short;
using uint32 = unsigned int;
using uint64 = unsigned long long;
using int64 = long long;

/// Element types, in config::dtype's order (input_fill.cpp asserts that they match).
enum class element_type : uint32 { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 };

/// How a plan makes element i.
enum class fill_rule : uint32 {
  uniform_float,   // low, high
  uniform_integer, // lowest, span
  normal,          // mean, stddev
  constant_bits,   // bits (constant, zeros, ones, and the poison pattern)
  iota,            // i
};

/// Everything element i depends on besides i. Plain data with a fixed layout: the host makes it
/// and passes it by value to the device fill kernel.
struct fill_plan {
  uint32 rule = 0;    // fill_rule
  uint32 type = 0;    // element_type
  uint64 key = 0;     // stream_key(seed, arg)
  double low = 0;     // uniform_float: the range [low, high), element units
  double high = 0;
  double mean = 0;    // normal, element units
  double stddev = 0;
  uint64 lowest = 0;  // uniform_integer: two's complement bits of the smallest value
  uint64 span = 0;    // uniform_integer: values in the range; 0 means all 2^64
  uint64 bits = 0;    // constant_bits: the element's bit pattern, zero-extended
};

inline constexpr uint64 golden_gamma = 0x9E3779B97F4A7C15ull; // SplitMix64's increment

// ---- types and bits -------------------------------------------------------------------------------

WARPFORGE_HD constexpr uint32 size_of(element_type type) {
  switch (type) {
  case element_type::i8:
  case element_type::u8: return 1;
  case element_type::f16:
  case element_type::bf16:
  case element_type::i16:
  case element_type::u16: return 2;
  case element_type::f32:
  case element_type::i32:
  case element_type::u32: return 4;
  default: return 8;
  }
}

WARPFORGE_HD constexpr bool is_float(element_type type) {
  return type == element_type::f16 || type == element_type::bf16 || type == element_type::f32 ||
         type == element_type::f64;
}

WARPFORGE_HD constexpr bool is_signed_integer(element_type type) {
  return type == element_type::i8 || type == element_type::i16 || type == element_type::i32 ||
         type == element_type::i64;
}

WARPFORGE_HD inline uint64 bits_of(double value) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64>(__double_as_longlong(value));
#else
  return std::bit_cast<uint64>(value);
#endif
}

WARPFORGE_HD inline double double_from_bits(uint64 bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<int64>(bits));
#else
  return std::bit_cast<double>(bits);
#endif
}

/// 2^n as a double, exactly, for n in [-1022, 1023].
WARPFORGE_HD inline double power_of_two(int n) {
  return double_from_bits(static_cast<uint64>(1023 + n) << 52);
}

/// The high 64 bits of the 128-bit product.
WARPFORGE_HD inline uint64 multiply_high(uint64 a, uint64 b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// Correctly rounded square root (IEEE), on both sides.
WARPFORGE_HD inline double square_root(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

// ---- the counter-based stream ----------------------------------------------------------------------

/// SplitMix64's output function (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
WARPFORGE_HD constexpr uint64 splitmix64_mix(uint64 z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

WARPFORGE_HD constexpr uint64 stream_key(uint64 seed, uint64 arg) {
  return splitmix64_mix(seed ^ splitmix64_mix(arg + golden_gamma));
}

WARPFORGE_HD constexpr uint64 draw(uint64 key, uint64 counter) {
  return splitmix64_mix(key + (counter + 1) * golden_gamma);
}

/// A double in [0, 1) with 53 random bits: an integer below 2^53 times 2^-53, both exact.
WARPFORGE_HD inline double unit(uint64 key, uint64 counter) {
  return static_cast<double>(draw(key, counter) >> 11) * 0x1p-53;
}

// ---- binary floating-point formats narrower than double ------------------------------------------

/// value >> shift, rounded to nearest, ties to even (shift >= 1; 0 when shift >= 64).
WARPFORGE_HD inline uint64 shift_right_to_nearest_even(uint64 value, int shift) {
  if (shift >= 64)
    return 0;
  const uint64 kept = value >> shift;
  const uint64 rest = value & ((uint64{1} << shift) - 1);
  const uint64 half = uint64{1} << (shift - 1);
  return rest > half || (rest == half && (kept & 1) != 0) ? kept + 1 : kept;
}

/// `value` rounded to nearest (ties to even) in a format with `exponent_bits` and
/// `mantissa_bits` (f16 5/10, bf16 8/7, f32 8/23), from the double's own bits (no double rounding
/// through float). Overflow gives +-inf, tiny values subnormals or +-0, NaN the format's quiet NaN
/// with the value's sign.
WARPFORGE_HD inline uint64 encode_binary(double value, int exponent_bits, int mantissa_bits) {
  const uint64 bits = bits_of(value);
  const uint64 sign = (bits >> 63) << (exponent_bits + mantissa_bits);
  const int exponent_field = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64 fraction = bits & ((uint64{1} << 52) - 1);
  const uint64 field_max = (uint64{1} << exponent_bits) - 1;
  const uint64 infinity = sign | (field_max << mantissa_bits);
  if (exponent_field == 0x7FF)
    return fraction == 0 ? infinity : infinity | (uint64{1} << (mantissa_bits - 1));
  if (exponent_field == 0) // zero, or a double subnormal: far below half the smallest subnormal
    return sign;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  int exponent = exponent_field - 1023;
  const uint64 significand = fraction | (uint64{1} << 52); // value = significand * 2^(exponent-52)
  if (exponent < 1 - bias) {
    // Subnormal: units of 2^(1 - bias - mantissa_bits). Rounding up to 2^mantissa_bits units
    // gives the smallest normal, which the same bits encode (field 1, mantissa 0).
    return sign | shift_right_to_nearest_even(significand, 53 - bias - mantissa_bits - exponent);
  }
  uint64 rounded = shift_right_to_nearest_even(significand, 52 - mantissa_bits);
  if (rounded == uint64{1} << (mantissa_bits + 1)) { // rounded up to the next power of two
    rounded >>= 1;
    ++exponent;
  }
  if (exponent > bias)
    return infinity;
  return sign | (static_cast<uint64>(exponent + bias) << mantissa_bits) |
         (rounded - (uint64{1} << mantissa_bits));
}

/// The exact double of a value in that format (NaN: a quiet NaN with its sign).
WARPFORGE_HD inline double decode_binary(uint64 bits, int exponent_bits, int mantissa_bits) {
  const uint64 sign = (bits >> (exponent_bits + mantissa_bits)) & 1;
  const uint64 field = (bits >> mantissa_bits) & ((uint64{1} << exponent_bits) - 1);
  const uint64 mantissa = bits & ((uint64{1} << mantissa_bits) - 1);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  if (field == (uint64{1} << exponent_bits) - 1)
    return double_from_bits((sign << 63) | (uint64{0x7FF} << 52) |
                            (mantissa != 0 ? uint64{1} << 51 : 0));
  if (field == 0) { // subnormal: mantissa units of 2^(1 - bias - mantissa_bits), exact
    const double magnitude = static_cast<double>(mantissa) * power_of_two(1 - bias - mantissa_bits);
    return sign != 0 ? -magnitude : magnitude;
  }
  return double_from_bits((sign << 63) |
                          (static_cast<uint64>(static_cast<int>(field) - bias + 1023) << 52) |
                          (mantissa << (52 - mantissa_bits)));
}

WARPFORGE_HD inline uint64 encode_float(element_type type, double value) {
  switch (type) {
  case element_type::f16: return encode_binary(value, 5, 10);
  case element_type::bf16: return encode_binary(value, 8, 7);
  case element_type::f32: return encode_binary(value, 8, 23);
  default: return bits_of(value);
  }
}

WARPFORGE_HD inline double decode_float(element_type type, uint64 bits) {
  switch (type) {
  case element_type::f16: return decode_binary(bits, 5, 10);
  case element_type::bf16: return decode_binary(bits, 8, 7);
  case element_type::f32: return decode_binary(bits, 8, 23);
  default: return double_from_bits(bits);
  }
}

/// The next representable value of a float type below (direction < 0) or above `bits`: every
/// IEEE format is sign-magnitude, so a step away from zero is +1 on the bits (as nextafter).
WARPFORGE_HD inline uint64 float_step(element_type type, uint64 bits, int direction) {
  const uint64 sign = uint64{1} << (8 * size_of(type) - 1);
  const bool negative = (bits & sign) != 0;
  if ((bits & ~sign) == 0) // +-0: the smallest subnormal of the direction's sign
    return direction < 0 ? (sign | 1) : 1;
  const bool away_from_zero = negative == (direction < 0);
  return away_from_zero ? bits + 1 : bits - 1;
}

// ---- integers ----------------------------------------------------------------------------------------

/// To nearest, ties to even, with basic operations only (as nearbyint in the default mode, but
/// -0.5 .. -0 give +0: the callers convert to integers, where the zero's sign does not exist).
WARPFORGE_HD inline double round_to_nearest_even(double value) {
  if (!(value > -0x1p52 && value < 0x1p52)) // already an integer, or inf, or NaN
    return value;
  const int64 whole = static_cast<int64>(value); // toward zero, exact here
  const double truncated = static_cast<double>(whole);
  const double fraction = value - truncated;    // exact
  const bool odd = (whole & 1) != 0;
  if (fraction > 0.5 || (fraction == 0.5 && odd))
    return truncated + 1.0;
  if (fraction < -0.5 || (fraction == -0.5 && odd))
    return truncated - 1.0;
  return truncated;
}

/// `value` rounded to nearest even and saturated to the integer type's range, as its two's
/// complement bits (the low size_of(type) bytes are the element); NaN gives 0.
WARPFORGE_HD inline uint64 saturate_integer(element_type type, double value) {
  if (value != value)
    return 0;
  const double rounded = round_to_nearest_even(value);
  const int bits = static_cast<int>(8 * size_of(type));
  if (is_signed_integer(type)) {
    const double limit = power_of_two(bits - 1); // first value out of range
    if (rounded >= limit)
      return (uint64{1} << (bits - 1)) - 1;
    if (rounded < -limit)
      return uint64{0} - (uint64{1} << (bits - 1));
    return static_cast<uint64>(static_cast<int64>(rounded));
  }
  if (rounded >= power_of_two(bits))
    return bits == 64 ? ~uint64{0} : (uint64{1} << bits) - 1;
  if (rounded <= 0.0)
    return 0;
  return static_cast<uint64>(rounded);
}

/// A value as element bits: floats rounded to nearest even, integers rounded and saturated.
WARPFORGE_HD inline uint64 encode_value(element_type type, double value) {
  return is_float(type) ? encode_float(type, value) : saturate_integer(type, value);
}

// ---- logarithm and cosine from basic operations ----------------------------------------------------

/// ln(x) for a positive, finite, normal x. x = 2^k * m with m in [sqrt(2)/2, sqrt(2)];
/// ln(m) = ln(1 + f) = 2 atanh(s), s = f / (2 + f), |s| < 0.172, summed as
/// f - (f^2/2 - s (f^2/2 + R(s^2))) with R's Taylor coefficients 2/3, 2/5, ..., 2/25 (the
/// structure of fdlibm's e_log.c; the terms left out are below 2^-60 relative). ln 2 is split so
/// that k * ln2_hi is exact. Accurate to about one ulp.
WARPFORGE_HD inline double natural_log(double x) {
  const uint64 bits = bits_of(x);
  int k = static_cast<int>((bits >> 52) & 0x7FF) - 1023;
  double m = double_from_bits((bits & ((uint64{1} << 52) - 1)) | (uint64{1023} << 52)); // [1, 2)
  if (m > 0x1.6a09e667f3bcdp+0) { // sqrt(2)
    m = m * 0.5; // exact
    ++k;
  }
  const double f = m - 1.0; // exact (Sterbenz)
  const double s = f / (2.0 + f);
  const double z = s * s;
  double r = 0x1.47ae147ae147bp-4;   // 2/25
  r = r * z + 0x1.642c8590b2164p-4;  // 2/23
  r = r * z + 0x1.8618618618618p-4;  // 2/21
  r = r * z + 0x1.af286bca1af28p-4;  // 2/19
  r = r * z + 0x1.e1e1e1e1e1e1ep-4;  // 2/17
  r = r * z + 0x1.1111111111111p-3;  // 2/15
  r = r * z + 0x1.3b13b13b13b14p-3;  // 2/13
  r = r * z + 0x1.745d1745d1746p-3;  // 2/11
  r = r * z + 0x1.c71c71c71c71cp-3;  // 2/9
  r = r * z + 0x1.2492492492492p-2;  // 2/7
  r = r * z + 0x1.999999999999ap-2;  // 2/5
  r = r * z + 0x1.5555555555555p-1;  // 2/3
  r = r * z;
  const double half_square = 0.5 * f * f;
  const double ln2_hi = 0x1.62e42feep-1;       // ln 2 with its low 32 bits cleared
  const double ln2_lo = 0x1.a39ef35793c76p-33; // ln 2 - ln2_hi
  const double kd = static_cast<double>(k);
  return kd * ln2_hi - ((half_square - (s * (half_square + r) + kd * ln2_lo)) - f);
}

/// sin(x) for |x| <= pi/4: Taylor to x^19 (the next term is below 2^-64 relative).
WARPFORGE_HD inline double sin_kernel(double x) {
  const double z = x * x;
  double p = -0x1.2f49b46814157p-57;  // -1/19!
  p = p * z + 0x1.952c77030ad4ap-49;  // 1/17!
  p = p * z - 0x1.ae7f3e733b81fp-41;  // 1/15!
  p = p * z + 0x1.6124613a86d09p-33;  // 1/13!
  p = p * z - 0x1.ae64567f544e4p-26;  // 1/11!
  p = p * z + 0x1.71de3a556c734p-19;  // 1/9!
  p = p * z - 0x1.a01a01a01a01ap-13;  // 1/7!
  p = p * z + 0x1.1111111111111p-7;   // 1/5!
  p = p * z - 0x1.5555555555555p-3;   // 1/3!
  return x + x * (z * p);
}

/// cos(x) for |x| <= pi/4: Taylor to x^20.
WARPFORGE_HD inline double cos_kernel(double x) {
  const double z = x * x;
  double p = 0x1.e542ba4020225p-62;   // 1/20!
  p = p * z - 0x1.6827863b97d97p-53;  // 1/18!
  p = p * z + 0x1.ae7f3e733b81fp-45;  // 1/16!
  p = p * z - 0x1.93974a8c07c9dp-37;  // 1/14!
  p = p * z + 0x1.1eed8eff8d898p-29;  // 1/12!
  p = p * z - 0x1.27e4fb7789f5cp-22;  // 1/10!
  p = p * z + 0x1.a01a01a01a01ap-16;  // 1/8!
  p = p * z - 0x1.6c16c16c16c17p-10;  // 1/6!
  p = p * z + 0x1.5555555555555p-5;   // 1/4!
  return 1.0 - (0.5 * z - z * z * p);
}

/// cos(2 pi u) for u in [0, 1). The quarter turn and the octant are split off exactly
/// (4u and its fraction are exact for u = k 2^-53), so the kernels only see |x| <= pi/4.
WARPFORGE_HD inline double cos_two_pi(double u) {
  const double quarters = 4.0 * u; // exact
  const int quadrant = static_cast<int>(quarters);
  const double r = quarters - static_cast<double>(quadrant); // [0, 1), exact
  const double half_pi = 0x1.921fb54442d18p+0;
  // cos and sin of r * pi/2, each from the kernel that keeps |x| <= pi/4.
  const bool low_half = r <= 0.5;
  const double x = low_half ? r * half_pi : (1.0 - r) * half_pi;
  switch (quadrant) {
  case 0: return low_half ? cos_kernel(x) : sin_kernel(x);    //  cos(r pi/2)
  case 1: return low_half ? -sin_kernel(x) : -cos_kernel(x);  // -sin(r pi/2)
  case 2: return low_half ? -cos_kernel(x) : -sin_kernel(x);  // -cos(r pi/2)
  default: return low_half ? sin_kernel(x) : cos_kernel(x);   //  sin(r pi/2)
  }
}

/// A standard normal deviate from counters 2i and 2i+1 (Box-Muller, cosine branch).
WARPFORGE_HD inline double normal_deviate(uint64 key, uint64 index) {
  const double u1 = unit(key, 2 * index);
  const double u2 = unit(key, 2 * index + 1);
  const double radius = square_root(-2.0 * natural_log(1.0 - u1)); // 1 - u1 in (0, 1], exact
  return radius * cos_two_pi(u2);
}

// ---- element i ---------------------------------------------------------------------------------------

WARPFORGE_HD inline uint64 uniform_float_bits(element_type type, double low, double high, double u) {
  uint64 bits = encode_float(type, low + u * (high - low));
  const double value = decode_float(type, bits);
  if (value >= high)
    bits = float_step(type, bits, -1);
  else if (value < low)
    bits = float_step(type, bits, +1);
  return bits;
}

/// Element `index` of the buffer `plan` describes, as its bits (zero-extended to 64; for
/// integers, the low size_of(type) bytes are the element).
WARPFORGE_HD inline uint64 generate_bits(const fill_plan& plan, uint64 index) {
  const auto type = static_cast<element_type>(plan.type);
  switch (static_cast<fill_rule>(plan.rule)) {
  case fill_rule::uniform_float: return uniform_float_bits(type, plan.low, plan.high, unit(plan.key, index));
  case fill_rule::uniform_integer: {
    const uint64 random = draw(plan.key, index);
    return plan.span == 0 ? random : plan.lowest + multiply_high(random, plan.span);
  }
  case fill_rule::normal:
    return encode_value(type, plan.mean + plan.stddev * normal_deviate(plan.key, index));
  case fill_rule::constant_bits: return plan.bits;
  case fill_rule::iota: return is_float(type) ? encode_float(type, static_cast<double>(index)) : index;
  }
  return 0;
}

} // namespace warpforge::gpu::generator
