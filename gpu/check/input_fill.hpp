#pragma once
// Deterministic input buffers: element i of argument `arg` under campaign seed `seed` depends only
// on (seed, arg, i) and the init_spec, never on the buffer length, on other elements or on the
// order of generation. So the same bytes come out on any host, in any thread split, and on the GPU
// (the runner generates inputs in place with the same code).
//
//   std::vector<std::byte> a(bytes);
//   if (auto r = fill_input(a, dtype::f32, buffer.init, seed, arg_index); !r) ...
//
// The generator's formulas, and why host and device agree bit for bit, are in
// counter_generator.hpp: fill_input and the runner's device fill kernel both evaluate
// generator::generate_bits on a fill_plan made here (make_fill_plan), so every distribution,
// `normal` included, gives the same bytes on the host and on any GPU.

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/check/counter_generator.hpp"

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

/// The shared header's element type of a dtype (same order, asserted in input_fill.cpp).
generator::element_type element_type_of(config::dtype type);

/// What element i of argument `arg` under `seed` depends on besides i: validated here, evaluated
/// by generator::generate_bits on the host (fill_input) or the device (the runner's fill kernel).
expected<generator::fill_plan, fill_error> make_fill_plan(config::dtype type,
                                                          const config::init_spec& init,
                                                          std::uint64_t seed, std::uint64_t arg);

/// A plan whose every element is `bits` (the poison pattern, for instance).
generator::fill_plan constant_plan(config::dtype type, std::uint64_t bits);

/// Every whole element of `buffer` from `plan` (a trailing partial element is left as is).
void fill_with_plan(std::span<std::byte> buffer, config::dtype type, const generator::fill_plan& plan);

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
