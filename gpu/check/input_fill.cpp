#include "gpu/check/input_fill.hpp"

#include "gpu/check/element_access.hpp"
#include "gpu/check/float16.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

namespace warpforge::gpu {

using config::dtype;
using config::init_kind;

namespace {

constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull; // SplitMix64's increment
constexpr int unit_bits = 53;                                  // bits of a double in [0, 1)
constexpr int discarded_bits = 64 - unit_bits;
// Smallest double that rounds to +inf as a float: FLT_MAX + half an ulp (2^128 - 2^103).
const double f32_overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);

std::uint64_t stream_key(std::uint64_t seed, std::uint64_t arg) {
  return splitmix64_mix(seed ^ splitmix64_mix(arg + golden_gamma));
}

std::uint64_t draw(std::uint64_t key, std::uint64_t counter) {
  return splitmix64_mix(key + (counter + 1) * golden_gamma);
}

double unit(std::uint64_t key, std::uint64_t counter) {
  return std::ldexp(static_cast<double>(draw(key, counter) >> discarded_bits), -unit_bits);
}

// --- floats ------------------------------------------------------------------------------------

std::uint64_t encode_float(dtype type, double value) {
  switch (type) {
  case dtype::f16: return double_to_f16(value);
  case dtype::bf16: return double_to_bf16(value);
  case dtype::f32: {
    // Out-of-range double -> float conversion is undefined in C++: saturate by hand, like IEEE.
    float narrowed = 0.0f;
    if (std::isfinite(value) && std::fabs(value) >= f32_overflow)
      narrowed = std::numeric_limits<float>::infinity();
    else if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max())
      narrowed = std::numeric_limits<float>::max();
    else
      narrowed = static_cast<float>(value); // rounds to nearest even
    if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max() && value < 0)
      narrowed = -narrowed;
    return std::bit_cast<std::uint32_t>(narrowed);
  }
  case dtype::f64: return std::bit_cast<std::uint64_t>(value);
  default: return 0;
  }
}

// The next representable value of a float dtype below (direction -1) or above (+1) `bits`.
std::uint64_t float_step(dtype type, std::uint64_t bits, int direction) {
  const double infinity = std::numeric_limits<double>::infinity();
  const double target = direction < 0 ? -infinity : infinity;
  switch (type) {
  case dtype::f32:
    return std::bit_cast<std::uint32_t>(
      std::nextafter(std::bit_cast<float>(static_cast<std::uint32_t>(bits)), static_cast<float>(target)));
  case dtype::f64: return std::bit_cast<std::uint64_t>(std::nextafter(std::bit_cast<double>(bits), target));
  default: break;
  }
  // f16 / bf16: sign-magnitude, so a step away from zero is +1 on the magnitude bits.
  constexpr std::uint64_t sign = 0x8000;
  const bool negative = (bits & sign) != 0;
  const bool zero = (bits & ~sign) == 0;
  if (zero)
    return direction < 0 ? (sign | 1) : 1;
  const bool away_from_zero = negative == (direction < 0);
  return away_from_zero ? bits + 1 : bits - 1;
}

std::uint64_t uniform_float(dtype type, const config::init_spec& init, double u) {
  std::uint64_t bits = encode_float(type, init.low + u * (init.high - init.low));
  if (to_double(type, bits) >= init.high)
    bits = float_step(type, bits, -1);
  else if (to_double(type, bits) < init.low)
    bits = float_step(type, bits, +1);
  return bits;
}

// --- integers ------------------------------------------------------------------------------------

int integer_bits(dtype type) { return static_cast<int>(8 * config::size_of(type)); }

// Rounds to nearest (ties to even) and saturates to the integer dtype's range; NaN gives 0.
std::uint64_t saturate_integer(dtype type, double value) {
  if (std::isnan(value))
    return 0;
  const double rounded = std::nearbyint(value);
  const int bits = integer_bits(type);
  if (config::is_signed_integer(type)) {
    const double limit = std::ldexp(1.0, bits - 1); // 2^(bits-1): first value out of range
    if (rounded >= limit)
      return (std::uint64_t{1} << (bits - 1)) - 1;
    if (rounded < -limit)
      return std::uint64_t{0} - (std::uint64_t{1} << (bits - 1)); // two's complement minimum
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(rounded));
  }
  const double limit = std::ldexp(1.0, bits);
  if (rounded >= limit)
    return bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1;
  if (rounded <= 0.0)
    return 0;
  return static_cast<std::uint64_t>(rounded);
}

// Integer uniform in [ceil(low), floor(high)] within the dtype's range, as (lowest bits, span).
struct integer_range {
  std::uint64_t lowest = 0; // two's complement bits of the smallest value
  std::uint64_t span = 0;   // values in the range; 0 means all 2^64
};

std::optional<integer_range> integer_uniform_range(dtype type, const config::init_spec& init) {
  const double lo = std::ceil(init.low);
  const double hi = std::floor(init.high);
  if (lo > hi)
    return std::nullopt;
  const std::uint64_t lo_bits = saturate_integer(type, lo);
  const std::uint64_t hi_bits = saturate_integer(type, hi);
  // Saturation moved both ends to one limit when [lo, hi] lies outside the dtype entirely.
  if (to_double(type, lo_bits) > hi || to_double(type, hi_bits) < lo)
    return std::nullopt;
  const std::uint64_t mask = integer_bits(type) == 64 ? ~std::uint64_t{0}
                                                      : (std::uint64_t{1} << integer_bits(type)) - 1;
  // Two's complement distance, valid for signed and unsigned alike.
  const std::uint64_t span = ((hi_bits - lo_bits) & mask) + 1;
  return integer_range{lo_bits, span};
}

std::uint64_t uniform_integer(const integer_range& range, std::uint64_t random) {
  if (range.span == 0)
    return random;
  const auto scaled = static_cast<unsigned __int128>(random) * range.span;
  return range.lowest + static_cast<std::uint64_t>(scaled >> 64);
}

// --- shared ----------------------------------------------------------------------------------------

std::uint64_t encode(dtype type, double value) {
  return config::is_floating_point(type) ? encode_float(type, value) : saturate_integer(type, value);
}

double normal_value(const config::init_spec& init, std::uint64_t key, std::uint64_t index) {
  const double u1 = unit(key, 2 * index);
  const double u2 = unit(key, 2 * index + 1);
  const double radius = std::sqrt(-2.0 * std::log1p(-u1)); // 1 - u1 in (0, 1]: log finite
  return init.mean + init.stddev * radius * std::cos(2.0 * std::numbers::pi * u2);
}

expected<void, fill_error> validate(dtype type, const config::init_spec& init) {
  switch (init.kind) {
  case init_kind::uniform:
    if (!std::isfinite(init.low) || !std::isfinite(init.high) || init.low >= init.high)
      return unexpected{fill_error::invalid_parameter};
    if (!config::is_floating_point(type) && !integer_uniform_range(type, init))
      return unexpected{fill_error::empty_range};
    return {};
  case init_kind::normal:
    if (!std::isfinite(init.mean) || !std::isfinite(init.stddev) || init.stddev <= 0.0)
      return unexpected{fill_error::invalid_parameter};
    return {};
  case init_kind::constant:
    if (!std::isfinite(init.value))
      return unexpected{fill_error::invalid_parameter};
    return {};
  case init_kind::zeros:
  case init_kind::ones:
  case init_kind::iota: return {};
  }
  return unexpected{fill_error::invalid_parameter};
}

} // namespace

std::string_view to_string(fill_error error) {
  switch (error) {
  case fill_error::partial_element: return "partial_element";
  case fill_error::invalid_parameter: return "invalid_parameter";
  case fill_error::empty_range: return "empty_range";
  }
  return "unknown";
}

std::optional<fill_error> fill_error_from_string(std::string_view text) {
  for (fill_error error : all_fill_errors)
    if (to_string(error) == text)
      return error;
  return std::nullopt;
}

std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t random_bits(std::uint64_t seed, std::uint64_t arg, std::uint64_t counter) {
  return draw(stream_key(seed, arg), counter);
}

expected<void, fill_error> fill_input(std::span<std::byte> buffer, dtype type,
                                      const config::init_spec& init, std::uint64_t seed,
                                      std::uint64_t arg) {
  const std::size_t element_bytes = config::size_of(type);
  if (buffer.size() % element_bytes != 0)
    return unexpected{fill_error::partial_element};
  if (auto valid = validate(type, init); !valid)
    return valid;
  const std::size_t elements = buffer.size() / element_bytes;
  const std::uint64_t key = stream_key(seed, arg);
  const bool floating = config::is_floating_point(type);

  switch (init.kind) {
  case init_kind::uniform:
    if (floating) {
      for (std::size_t i = 0; i < elements; ++i)
        store_bits(buffer, type, i, uniform_float(type, init, unit(key, i)));
    } else {
      const integer_range range = *integer_uniform_range(type, init);
      for (std::size_t i = 0; i < elements; ++i)
        store_bits(buffer, type, i, uniform_integer(range, draw(key, i)));
    }
    return {};
  case init_kind::normal:
    for (std::size_t i = 0; i < elements; ++i)
      store_bits(buffer, type, i, encode(type, normal_value(init, key, i)));
    return {};
  case init_kind::constant:
  case init_kind::zeros:
  case init_kind::ones: {
    const double value = init.kind == init_kind::constant ? init.value
                         : init.kind == init_kind::ones   ? 1.0
                                                          : 0.0;
    const std::uint64_t bits = encode(type, value);
    for (std::size_t i = 0; i < elements; ++i)
      store_bits(buffer, type, i, bits);
    return {};
  }
  case init_kind::iota:
    for (std::size_t i = 0; i < elements; ++i)
      store_bits(buffer, type, i, floating ? encode_float(type, static_cast<double>(i)) : i);
    return {};
  }
  return {};
}

input_check inputs_unchanged(std::span<const std::byte> before, std::span<const std::byte> after) {
  const std::size_t common = std::min(before.size(), after.size());
  for (std::size_t i = 0; i < common; ++i)
    if (before[i] != after[i])
      return {false, i};
  if (before.size() != after.size())
    return {false, common};
  return {};
}

} // namespace warpforge::gpu
