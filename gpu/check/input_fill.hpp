#pragma once
// Deterministic input buffers: element i of argument `arg` under campaign seed `seed` depends only
// on (seed, arg, i) and the init_spec, never on the buffer length, on other elements or on the
// order of generation. So the same bytes come out on any host, in any thread split, and a GPU
// kernel can later generate the same values in place (see "Generator" below).
//
//   std::vector<std::byte> a(bytes);
//   if (auto r = fill_input(a, dtype::f32, buffer.init, seed, arg_index); !r) ...
//
// Generator (stable: changing it changes every campaign's inputs; docs/measurement.md):
//   key      = splitmix64_mix(seed ^ splitmix64_mix(arg + golden))     golden = 0x9E3779B97F4A7C15
//   draw(c)  = splitmix64_mix(key + (c + 1) * golden)                  (counter-based SplitMix64)
//   unit(c)  = (draw(c) >> 11) * 2^-53                                 in [0, 1), 53 bits
//   uniform  float: low + unit(i) * (high - low), rounded to the dtype, then kept inside
//            [low, high) (a value rounded up to `high` steps down one representable value);
//            integer: an integer in [ceil(low), floor(high)] ∩ dtype range, via
//            lo + (draw(i) * span) >> 64 (multiply-shift; bias < span / 2^64).
//   normal   Box-Muller on counters 2i and 2i+1: mean + stddev * sqrt(-2 ln(1 - u1)) cos(2 pi u2),
//            rounded to the dtype (integers: to nearest, saturated to the dtype's range).
//   constant value; zeros 0; ones 1 (floats rounded to nearest even; integers rounded and saturated).
//   iota     element i = i: integers wrap modulo 2^bits (two's complement for signed); floats are
//            i rounded to the dtype (f16 loses integers above 2048 and overflows to inf above 65519).
// Bit-exact on any host for everything but `normal`, whose log/sqrt/cos come from the host's libm:
// a device generator may differ in the last bit of the double, which rarely survives rounding to
// the dtype. Generate on the host and copy (what the runner does) when bit-exactness matters.

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "expected/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace warpforge::gpu {

enum class fill_error : std::uint8_t {
  partial_element,   // the buffer's byte size is not a multiple of the element size
  invalid_parameter, // non-finite parameter, low >= high, or stddev <= 0
  empty_range,       // integer uniform: no integer of the dtype lies in [low, high]
};
std::string_view to_string(fill_error error);
std::optional<fill_error> fill_error_from_string(std::string_view text);
inline constexpr fill_error all_fill_errors[] = {fill_error::partial_element,
                                                 fill_error::invalid_parameter,
                                                 fill_error::empty_range};

/// SplitMix64's output function (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
std::uint64_t splitmix64_mix(std::uint64_t z);

/// The 64 random bits number `counter` of argument `arg` under `seed` (the generator above).
std::uint64_t random_bits(std::uint64_t seed, std::uint64_t arg, std::uint64_t counter);

/// Fills every element of `buffer` (type `type`) per `init`, from (seed, arg).
expected<void, fill_error> fill_input(std::span<std::byte> buffer, config::dtype type,
                                      const config::init_spec& init, std::uint64_t seed,
                                      std::uint64_t arg);

/// Result of comparing an input buffer before and after a launch.
struct input_check {
  bool unchanged = true;                      // same size and bytes
  std::optional<std::size_t> first_difference; // byte offset of the first difference (the
                                              // shorter size when only the sizes differ)

  bool operator==(const input_check&) const = default;
};

/// Byte comparison of an input before and after the kernel ran (inputs must stay unchanged).
input_check inputs_unchanged(std::span<const std::byte> before, std::span<const std::byte> after);

} // namespace warpforge::gpu
