#include "gpu/check/compare.hpp"

#include "gpu/check/float16.hpp"
#include "gpu/check/poison.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace warpforge::gpu;
using warpforge::config::dtype;
using warpforge::config::tolerance;

namespace {

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<std::byte> f16_bytes(const std::vector<std::uint16_t>& bits) { return bytes_of(bits); }

const tolerance f32_tol{1e-5, 1e-6};
const tolerance f16_tol{1e-2, 1e-3};
const tolerance bf16_tol{2e-2, 1e-2};
const double a_nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

compare_report compare(const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                       dtype type, tolerance tol) {
  auto r = compare_outputs(got, want, type, tol);
  EXPECT_TRUE(r.has_value());
  return r ? *r : compare_report{};
}

} // namespace

TEST(compare, every_error_round_trips_through_its_name) {
  for (auto error : all_compare_errors)
    EXPECT_EQ(compare_error_from_string(to_string(error)), error) << to_string(error);
  EXPECT_FALSE(compare_error_from_string("mismatch"));
}

TEST(compare, the_tolerance_rule_handles_nan_and_inf) {
  EXPECT_TRUE(within_tolerance(1.0 + 1e-5, 1.0, f32_tol));  // 1e-5 <= 1e-6 + 1e-5
  EXPECT_FALSE(within_tolerance(1.0 + 2e-5, 1.0, f32_tol));
  EXPECT_TRUE(within_tolerance(5e-7, 0.0, f32_tol));        // atol near zero
  EXPECT_TRUE(within_tolerance(a_nan, a_nan, f32_tol));         // reference NaN: any NaN matches
  EXPECT_FALSE(within_tolerance(a_nan, 1.0, f32_tol));        // stays poisoned
  EXPECT_FALSE(within_tolerance(1.0, a_nan, f32_tol));
  EXPECT_TRUE(within_tolerance(inf, inf, f32_tol));
  EXPECT_FALSE(within_tolerance(-inf, inf, f32_tol));
  EXPECT_FALSE(within_tolerance(inf, 1e300, {1e9, 1e9}));
}

TEST(compare, f32_reports_the_first_bad_element_and_error_maxima) {
  const auto want = bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  const auto got = bytes_of(std::vector<float>{1, 2, 3, 4.5f, 5, 6, 5, 8.00001f});
  const auto r = compare(got, want, dtype::f32, f32_tol);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.elements, 8u);
  EXPECT_EQ(r.mismatches, 2u);
  ASSERT_TRUE(r.first_bad_index);
  EXPECT_EQ(*r.first_bad_index, 3u);
  EXPECT_EQ(r.first_bad_got, 4.5);
  EXPECT_EQ(r.first_bad_want, 4.0);
  EXPECT_EQ(r.first_bad_got_bits, 0x40900000u); // 4.5f
  EXPECT_EQ(r.max_abs_error, 2.0);              // element 6
  EXPECT_NEAR(r.max_rel_error, 2.0 / 7.0, 1e-12);
  EXPECT_EQ(r.poisoned_elements, 0u);
}

TEST(compare, equal_buffers_pass_for_every_dtype) {
  std::vector<std::byte> buffer(64);
  for (std::size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = static_cast<std::byte>(i * 3 + 1); // no NaNs among these float patterns
  for (dtype type : warpforge::config::all_dtypes) {
    const auto r = compare(buffer, buffer, type, {0.0, 0.0});
    EXPECT_TRUE(r.passed) << to_string(type);
    EXPECT_EQ(r.elements, 64 / warpforge::config::size_of(type)) << to_string(type);
    EXPECT_EQ(r.max_abs_error, 0.0) << to_string(type);
  }
}

TEST(compare, a_poisoned_output_fails_and_is_counted_for_every_dtype) {
  for (dtype type : warpforge::config::all_dtypes) {
    std::vector<std::byte> got(48), want(48); // want: zeros
    fill_poison(got, type);
    const std::size_t elements = 48 / warpforge::config::size_of(type);
    const auto r = compare(got, want, type, {1.0, 1.0});
    EXPECT_FALSE(r.passed) << to_string(type);
    EXPECT_EQ(r.mismatches, elements) << to_string(type);
    EXPECT_EQ(r.poisoned_elements, elements) << to_string(type);
    EXPECT_EQ(r.first_bad_index, 0u) << to_string(type);
    EXPECT_EQ(r.first_bad_got_bits, poison_bits(type)) << to_string(type);
  }
}

TEST(compare, f16_decodes_bits_and_applies_the_tolerance) {
  // want 1.0; 0x3C0B = 1.0107421875 is inside 1e-3 + 1e-2, 0x3C0C = 1.01171875 is not
  EXPECT_TRUE(compare(f16_bytes({0x3C0B}), f16_bytes({0x3C00}), dtype::f16, f16_tol).passed);
  EXPECT_FALSE(compare(f16_bytes({0x3C0C}), f16_bytes({0x3C00}), dtype::f16, f16_tol).passed);
  // subnormals and signed zeros are tiny against atol
  EXPECT_TRUE(compare(f16_bytes({0x0002, 0x0000}), f16_bytes({0x0001, 0x8000}), dtype::f16, f16_tol).passed);
  // inf and NaN
  EXPECT_TRUE(compare(f16_bytes({0x7C00, 0x7E00}), f16_bytes({0x7C00, 0x7E01}), dtype::f16, f16_tol).passed);
  const auto r = compare(f16_bytes({0x3C00, 0x7C00, 0x7E00}), f16_bytes({0x3C00, 0x7BFF, 0x3C00}),
                         dtype::f16, f16_tol);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first_bad_index, 1u);
  EXPECT_EQ(r.first_bad_got, inf);
  EXPECT_EQ(r.first_bad_want, 65504.0);
  EXPECT_EQ(r.max_abs_error, inf); // NaN element not counted in the maxima
}

TEST(compare, bf16_decodes_bits_and_applies_the_tolerance) {
  // want 1.0; 0x3F82 = 1.015625 within 1e-2 + 2e-2, 0x3F88 = 1.0625 is not
  EXPECT_TRUE(compare(f16_bytes({0x3F82}), f16_bytes({0x3F80}), dtype::bf16, bf16_tol).passed);
  const auto r = compare(f16_bytes({0x3F88}), f16_bytes({0x3F80}), dtype::bf16, bf16_tol);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_bad_got, 1.0625);
  EXPECT_EQ(r.max_abs_error, 0.0625);
  // a NaN where the reference is finite fails; NaN where the reference is NaN passes
  EXPECT_FALSE(compare(f16_bytes({bf16_quiet_nan}), f16_bytes({0x3F80}), dtype::bf16, bf16_tol).passed);
  EXPECT_TRUE(compare(f16_bytes({bf16_quiet_nan}), f16_bytes({0xFFC1}), dtype::bf16, bf16_tol).passed);
}

TEST(compare, f64_uses_the_tolerance_at_double_precision) {
  const tolerance tol{1e-12, 1e-14};
  EXPECT_TRUE(compare(bytes_of(std::vector<double>{1.0 + 5e-13}), bytes_of(std::vector<double>{1.0}),
                      dtype::f64, tol).passed);
  EXPECT_FALSE(compare(bytes_of(std::vector<double>{1.0 + 5e-12}), bytes_of(std::vector<double>{1.0}),
                       dtype::f64, tol).passed);
}

TEST(compare, integers_compare_exactly_whatever_the_tolerance) {
  const auto r = compare(bytes_of(std::vector<std::int32_t>{5, -7}),
                         bytes_of(std::vector<std::int32_t>{5, -6}), dtype::i32, {1.0, 100.0});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_bad_index, 1u);
  EXPECT_EQ(r.first_bad_got, -7.0);
  EXPECT_EQ(r.first_bad_want, -6.0);
  EXPECT_EQ(r.max_abs_error, 1.0);
  const auto u8 = compare(bytes_of(std::vector<std::uint8_t>{0, 255}),
                          bytes_of(std::vector<std::uint8_t>{0, 254}), dtype::u8, {});
  EXPECT_EQ(u8.first_bad_got, 255.0);
  EXPECT_EQ(u8.first_bad_index, 1u);
}

TEST(compare, sixty_four_bit_extremes_do_not_overflow_the_error) {
  const auto r = compare(bytes_of(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max()}),
                         bytes_of(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()}),
                         dtype::i64, {});
  EXPECT_EQ(r.max_abs_error, 18446744073709551615.0);
  EXPECT_EQ(r.first_bad_want_bits, 0x8000000000000000ull);
  const auto u = compare(bytes_of(std::vector<std::uint64_t>{0}),
                         bytes_of(std::vector<std::uint64_t>{~0ull}), dtype::u64, {});
  EXPECT_EQ(u.max_abs_error, 18446744073709551615.0);
  const auto i8 = compare(bytes_of(std::vector<std::int8_t>{127}),
                          bytes_of(std::vector<std::int8_t>{-128}), dtype::i8, {});
  EXPECT_EQ(i8.max_abs_error, 255.0);
  EXPECT_EQ(i8.first_bad_want, -128.0);
}

TEST(compare, mismatched_sizes_are_errors) {
  std::vector<std::byte> four(4), eight(8), six(6);
  auto r = compare_outputs(four, eight, dtype::f32, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), compare_error::size_mismatch);
  r = compare_outputs(six, six, dtype::f32, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), compare_error::partial_element);
}
