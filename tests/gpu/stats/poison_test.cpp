#include "gpu/check/poison.hpp"

#include "gpu/check/element_access.hpp"
#include "gpu/check/float16.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

using namespace warpforge::gpu;
using warpforge::config::dtype;

TEST(poison, float_patterns_are_signalling_nans) {
  // quiet bit: the mantissa's top bit
  EXPECT_TRUE(is_nan_bits(dtype::f16, poison_f16));
  EXPECT_EQ(poison_f16 & 0x0200u, 0u);
  EXPECT_TRUE(is_nan_bits(dtype::bf16, poison_bf16));
  EXPECT_EQ(poison_bf16 & 0x0040u, 0u);
  EXPECT_TRUE(is_nan_bits(dtype::f32, poison_f32));
  EXPECT_EQ(poison_f32 & 0x00400000u, 0u);
  EXPECT_TRUE(is_nan_bits(dtype::f64, poison_f64));
  EXPECT_EQ(poison_f64 & 0x0008000000000000ull, 0u);
  EXPECT_EQ(poison_bf16, poison_f32 >> 16);
}

TEST(poison, arithmetic_nans_are_not_poison) {
  volatile float zero = 0.0f;
  const float computed = zero / zero;
  EXPECT_NE(std::bit_cast<std::uint32_t>(computed), poison_f32);
  EXPECT_NE(double_to_f16(std::nan("")), poison_f16);
  EXPECT_NE(double_to_bf16(std::nan("")), poison_bf16);
}

TEST(poison, every_dtype_fills_and_counts_its_pattern) {
  constexpr std::size_t elements = 37;
  for (dtype type : warpforge::config::all_dtypes) {
    const std::size_t size = warpforge::config::size_of(type);
    std::vector<std::byte> buffer(elements * size + (size > 1 ? 1 : 0)); // a partial tail
    fill_poison(buffer, type);
    EXPECT_EQ(count_poisoned(buffer, type), elements) << to_string(type);
    EXPECT_EQ(load_bits(buffer, type, 5), poison_bits(type)) << to_string(type);
    if (size > 1) {
      EXPECT_EQ(buffer.back(), std::byte{0}) << "partial tail untouched, " << to_string(type);
    }
    store_bits(buffer, type, 5, 0);
    EXPECT_EQ(count_poisoned(buffer, type), elements - 1) << to_string(type);
  }
}

TEST(poison, integer_patterns_repeat_bad) {
  EXPECT_EQ(poison_bits(dtype::u8), 0xBAu);
  EXPECT_EQ(poison_bits(dtype::i16), 0xBADBu);
  EXPECT_EQ(poison_bits(dtype::u32), 0xBADBADBAu);
  EXPECT_EQ(poison_bits(dtype::i64), 0xBADBADBADBADBADBull);
}
