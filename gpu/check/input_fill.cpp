#include "gpu/check/input_fill.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/check/element_access.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::gpu {

using config::dtype;
using config::init_kind;
namespace gen = generator;

// The shared header's element types follow config::dtype's order, so a dtype converts by value.
static_assert(static_cast<int>(gen::element_type::f16) == static_cast<int>(dtype::f16) &&
              static_cast<int>(gen::element_type::bf16) == static_cast<int>(dtype::bf16) &&
              static_cast<int>(gen::element_type::f32) == static_cast<int>(dtype::f32) &&
              static_cast<int>(gen::element_type::f64) == static_cast<int>(dtype::f64) &&
              static_cast<int>(gen::element_type::i8) == static_cast<int>(dtype::i8) &&
              static_cast<int>(gen::element_type::i16) == static_cast<int>(dtype::i16) &&
              static_cast<int>(gen::element_type::i32) == static_cast<int>(dtype::i32) &&
              static_cast<int>(gen::element_type::i64) == static_cast<int>(dtype::i64) &&
              static_cast<int>(gen::element_type::u8) == static_cast<int>(dtype::u8) &&
              static_cast<int>(gen::element_type::u16) == static_cast<int>(dtype::u16) &&
              static_cast<int>(gen::element_type::u32) == static_cast<int>(dtype::u32) &&
              static_cast<int>(gen::element_type::u64) == static_cast<int>(dtype::u64),
              "generator::element_type must list the dtypes in config::dtype's order");

namespace {

// Integer uniform in [ceil(low), floor(high)] within the dtype's range, as (lowest bits, span).
struct integer_range {
  std::uint64_t lowest = 0; // two's complement bits of the smallest value
  std::uint64_t span = 0;   // values in the range; 0 means all 2^64
};

int integer_bits(dtype type) { return static_cast<int>(8 * config::size_of(type)); }

std::optional<integer_range> integer_uniform_range(dtype type, const config::init_spec& init) {
  const double lo = std::ceil(init.low);
  const double hi = std::floor(init.high);
  if (lo > hi)
    return std::nullopt;
  const std::uint64_t lo_bits = gen::saturate_integer(element_type_of(type), lo);
  const std::uint64_t hi_bits = gen::saturate_integer(element_type_of(type), hi);
  // Saturation moved both ends to one limit when [lo, hi] lies outside the dtype entirely.
  if (to_double(type, lo_bits) > hi || to_double(type, hi_bits) < lo)
    return std::nullopt;
  const std::uint64_t mask = integer_bits(type) == 64 ? ~std::uint64_t{0}
                                                      : (std::uint64_t{1} << integer_bits(type)) - 1;
  // Two's complement distance, valid for signed and unsigned alike.
  const std::uint64_t span = ((hi_bits - lo_bits) & mask) + 1;
  return integer_range{lo_bits, span};
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

constexpr vocabulary::enum_word<fill_error> fill_error_words[] = {
    {fill_error::partial_element, "partial_element"},
    {fill_error::invalid_parameter, "invalid_parameter"},
    {fill_error::empty_range, "empty_range"},
};
static_assert(vocabulary::covers(fill_error_words, all_fill_errors));

std::string_view to_string(fill_error error) { return vocabulary::word_of(fill_error_words, error); }

std::optional<fill_error> fill_error_from_string(std::string_view text) {
  return vocabulary::value_of(fill_error_words, text);
}

generator::element_type element_type_of(dtype type) {
  return static_cast<gen::element_type>(static_cast<std::uint32_t>(type));
}

std::uint64_t splitmix64_mix(std::uint64_t z) {
  return gen::splitmix64_mix(z);
}

std::uint64_t random_bits(std::uint64_t seed, std::uint64_t arg, std::uint64_t counter) {
  return gen::draw(gen::stream_key(seed, arg), counter);
}

expected<generator::fill_plan, fill_error> make_fill_plan(dtype type, const config::init_spec& init,
                                                          std::uint64_t seed, std::uint64_t arg) {
  if (auto valid = validate(type, init); !valid)
    return unexpected{valid.error()};
  gen::fill_plan plan;
  plan.type = static_cast<std::uint32_t>(element_type_of(type));
  plan.key = gen::stream_key(seed, arg);
  auto rule = [&](gen::fill_rule r) { plan.rule = static_cast<std::uint32_t>(r); };
  switch (init.kind) {
  case init_kind::uniform:
    if (config::is_floating_point(type)) {
      rule(gen::fill_rule::uniform_float);
      plan.low = init.low;
      plan.high = init.high;
    } else {
      rule(gen::fill_rule::uniform_integer);
      const integer_range range = *integer_uniform_range(type, init);
      plan.lowest = range.lowest;
      plan.span = range.span;
    }
    break;
  case init_kind::normal:
    rule(gen::fill_rule::normal);
    plan.mean = init.mean;
    plan.stddev = init.stddev;
    break;
  case init_kind::constant:
  case init_kind::zeros:
  case init_kind::ones: {
    const double value = init.kind == init_kind::constant ? init.value
                         : init.kind == init_kind::ones   ? 1.0
                                                          : 0.0;
    rule(gen::fill_rule::constant_bits);
    plan.bits = gen::encode_value(element_type_of(type), value);
    break;
  }
  case init_kind::iota: rule(gen::fill_rule::iota); break;
  }
  return plan;
}

generator::fill_plan constant_plan(dtype type, std::uint64_t bits) {
  gen::fill_plan plan;
  plan.rule = static_cast<std::uint32_t>(gen::fill_rule::constant_bits);
  plan.type = static_cast<std::uint32_t>(element_type_of(type));
  plan.bits = bits;
  return plan;
}

void fill_with_plan(std::span<std::byte> buffer, dtype type, const generator::fill_plan& plan) {
  const std::size_t elements = buffer.size() / config::size_of(type);
  for (std::size_t i = 0; i < elements; ++i)
    store_bits(buffer, type, i, gen::generate_bits(plan, i));
}

expected<void, fill_error> fill_input(std::span<std::byte> buffer, dtype type,
                                      const config::init_spec& init, std::uint64_t seed,
                                      std::uint64_t arg) {
  if (buffer.size() % config::size_of(type) != 0)
    return unexpected{fill_error::partial_element};
  auto plan = make_fill_plan(type, init, seed, arg);
  if (!plan)
    return unexpected{plan.error()};
  fill_with_plan(buffer, type, *plan);
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
