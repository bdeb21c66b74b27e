#include "config/dtype.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace warpforge::config {
namespace {

TEST(ConfigDtype, EveryValueRoundTripsThroughItsName) {
  for (const dtype type : all_dtypes)
    EXPECT_EQ(dtype_from_string(to_string(type)), type) << to_string(type);
  EXPECT_EQ(std::size(all_dtypes), 12u);
  EXPECT_EQ(dtype_from_string("float"), std::nullopt);
}

TEST(ConfigDtype, SizesAreTheElementBytes) {
  EXPECT_EQ(size_of(dtype::f16), 2u);
  EXPECT_EQ(size_of(dtype::bf16), 2u);
  EXPECT_EQ(size_of(dtype::f32), 4u);
  EXPECT_EQ(size_of(dtype::f64), 8u);
  EXPECT_EQ(size_of(dtype::i8), 1u);
  EXPECT_EQ(size_of(dtype::u16), 2u);
  EXPECT_EQ(size_of(dtype::i32), 4u);
  EXPECT_EQ(size_of(dtype::u64), 8u);
}

TEST(ConfigDtype, FloatingAndSignedClassesAreRight) {
  EXPECT_TRUE(is_floating_point(dtype::bf16));
  EXPECT_FALSE(is_floating_point(dtype::i32));
  EXPECT_TRUE(is_signed_integer(dtype::i8));
  EXPECT_FALSE(is_signed_integer(dtype::u8));
  EXPECT_FALSE(is_signed_integer(dtype::f32));
}

TEST(ConfigDtype, AliasesPointToTheShortNamesForHints) {
  EXPECT_EQ(dtype_from_alias("float32"), dtype::f32);
  EXPECT_EQ(dtype_from_alias("float"), dtype::f32);
  EXPECT_EQ(dtype_from_alias("half"), dtype::f16);
  EXPECT_EQ(dtype_from_alias("double"), dtype::f64);
  EXPECT_EQ(dtype_from_alias("int"), dtype::i32);
  EXPECT_EQ(dtype_from_alias("quaternion"), std::nullopt);
}

TEST(ConfigDtype, FitsIntegerChecksTheDtypeRange) {
  EXPECT_TRUE(fits_integer(dtype::i8, -128));
  EXPECT_FALSE(fits_integer(dtype::i8, 128));
  EXPECT_TRUE(fits_integer(dtype::u8, 255));
  EXPECT_FALSE(fits_integer(dtype::u8, -1));
  EXPECT_TRUE(fits_integer(dtype::i32, std::numeric_limits<std::int32_t>::max()));
  EXPECT_FALSE(fits_integer(dtype::i32, std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1));
  EXPECT_TRUE(fits_integer(dtype::u32, 4294967295));
  EXPECT_FALSE(fits_integer(dtype::u64, -1));
  EXPECT_TRUE(fits_integer(dtype::i64, std::numeric_limits<std::int64_t>::min()));
  EXPECT_FALSE(fits_integer(dtype::f32, 1));
}

} // namespace
} // namespace warpforge::config
