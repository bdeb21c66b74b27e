#include "gpu/check/float16.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace warpforge::gpu;

TEST(float16, f16_decodes_normals_subnormals_and_specials) {
  EXPECT_EQ(f16_to_double(0x0000), 0.0);
  EXPECT_TRUE(std::signbit(f16_to_double(0x8000)));
  EXPECT_EQ(f16_to_double(0x3C00), 1.0);
  EXPECT_EQ(f16_to_double(0xC000), -2.0);
  EXPECT_EQ(f16_to_double(0x3555), 0.333251953125);
  EXPECT_EQ(f16_to_double(0x7BFF), 65504.0);                       // largest finite
  EXPECT_EQ(f16_to_double(0x0400), std::ldexp(1.0, -14));          // smallest normal
  EXPECT_EQ(f16_to_double(0x0001), std::ldexp(1.0, -24));          // smallest subnormal
  EXPECT_EQ(f16_to_double(0x03FF), std::ldexp(1023.0, -24));       // largest subnormal
  EXPECT_EQ(f16_to_double(0x7C00), HUGE_VAL);
  EXPECT_EQ(f16_to_double(0xFC00), -HUGE_VAL);
  EXPECT_TRUE(std::isnan(f16_to_double(0x7E00)));
  EXPECT_TRUE(std::isnan(f16_to_double(0x7C01))); // signalling NaN
}

TEST(float16, f16_encoding_rounds_to_nearest_even) {
  EXPECT_EQ(double_to_f16(1.0), 0x3C00);
  EXPECT_EQ(double_to_f16(1.0 + std::ldexp(1.0, -11)), 0x3C00);     // tie -> even (down)
  EXPECT_EQ(double_to_f16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02); // tie -> even (up)
  EXPECT_EQ(double_to_f16(1.0 / 3.0), 0x3555);
  EXPECT_EQ(double_to_f16(65519.0), 0x7BFF);
  EXPECT_EQ(double_to_f16(65520.0), 0x7C00); // tie between 65504 and 2^16 -> inf
  EXPECT_EQ(double_to_f16(-1e6), 0xFC00);
  EXPECT_EQ(double_to_f16(std::ldexp(1.0, -25)), 0x0000);        // tie -> 0
  EXPECT_EQ(double_to_f16(std::ldexp(3.0, -26)), 0x0001);        // 0.75 units -> 1
  EXPECT_EQ(double_to_f16(std::ldexp(1.5, -24)), 0x0002);        // tie 1|2 -> 2
  EXPECT_EQ(double_to_f16(std::ldexp(1023.5, -24)), 0x0400);     // subnormal rounds to normal
  EXPECT_EQ(double_to_f16(1e-9), 0x0000);
  EXPECT_EQ(double_to_f16(-0.0), 0x8000);
  EXPECT_EQ(double_to_f16(std::nan("")), f16_quiet_nan);
  EXPECT_EQ(double_to_f16(-std::nan("")), 0xFE00);
}

TEST(float16, bf16_decodes_and_encodes_with_float_range) {
  EXPECT_EQ(bf16_to_double(0x3F80), 1.0);
  EXPECT_EQ(bf16_to_double(0x0080), std::ldexp(1.0, -126));
  EXPECT_EQ(bf16_to_double(0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_to_double(0x7F7F), std::ldexp(255.0, 120)); // largest finite
  EXPECT_EQ(bf16_to_double(0x7F80), HUGE_VAL);
  EXPECT_TRUE(std::isnan(bf16_to_double(0x7FC0)));
  EXPECT_EQ(double_to_bf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);     // tie -> even
  EXPECT_EQ(double_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82); // tie -> even
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, 128) - std::ldexp(1.0, 119)), 0x7F80); // tie -> inf
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, 128) - std::ldexp(1.0, 119) - 1e30), 0x7F7F);
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -134)), 0x0000); // tie -> 0
  EXPECT_EQ(double_to_bf16(std::nan("")), bf16_quiet_nan);
}

TEST(float16, every_non_nan_bit_pattern_round_trips) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    if (!std::isnan(f16_to_double(b))) {
      ASSERT_EQ(double_to_f16(f16_to_double(b)), b) << std::hex << bits;
    }
    if (!std::isnan(bf16_to_double(b))) {
      ASSERT_EQ(double_to_bf16(bf16_to_double(b)), b) << std::hex << bits;
    }
  }
}
