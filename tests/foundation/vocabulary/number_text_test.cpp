#include "foundation/vocabulary/number_text.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace warpforge::vocabulary {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

TEST(NumberText, TimesHaveThreeSignificantDigitsInTheLargestUnitThatKeepsThemAtLeastOne) {
  EXPECT_EQ(time_text(7.76e-4), "776 us");
  EXPECT_EQ(time_text(1.33e-3), "1.33 ms");
  EXPECT_EQ(time_text(1.3300e-3), "1.33 ms") << "trailing digits beyond three are dropped";
  EXPECT_EQ(time_text(1.3e-3), "1.30 ms") << "three digits are kept even when the last is zero";
  EXPECT_EQ(time_text(12.345e-6), "12.3 us");
  EXPECT_EQ(time_text(2.5), "2.50 s");
  EXPECT_EQ(time_text(42e-9), "42.0 ns");
  EXPECT_EQ(time_text(5e-10), "0.500 ns") << "below 1 ns stays in ns";
  EXPECT_EQ(time_text(1234.5), "1230 s") << "past 1000 s still 3 significant digits";
}

TEST(NumberText, ATimeThatRoundsUpToTheNextUnitIsWrittenInIt) {
  EXPECT_EQ(time_text(999.9e-6), "1.00 ms");
  EXPECT_EQ(time_text(9.999e-6), "10.0 us");
  EXPECT_EQ(time_text(99.99e-6), "100 us");
}

TEST(NumberText, EdgeValuesOfTimes) {
  EXPECT_EQ(time_text(0), "0 s");
  EXPECT_EQ(time_text(-7.76e-4), "-776 us") << "a difference of times keeps its sign";
  EXPECT_EQ(time_text(nan), "NaN") << "not a measurement: no unit, never a number";
  EXPECT_EQ(time_text(inf), "inf");
  EXPECT_EQ(time_text(-inf), "-inf");
}

TEST(NumberText, SpeedupsHaveTwoDecimals) {
  EXPECT_EQ(speedup_text(5.5555), "5.56x");
  EXPECT_EQ(speedup_text(1.0), "1.00x");
  EXPECT_EQ(speedup_text(0.98), "0.98x");
  EXPECT_EQ(speedup_text(12.345), "12.35x");
  EXPECT_EQ(speedup_text(0), "0.00x");
  EXPECT_EQ(speedup_text(nan), "NaN");
  EXPECT_EQ(speedup_text(inf), "inf");
}

TEST(NumberText, FractionsArePercentWithOneDecimal) {
  EXPECT_EQ(fraction_text(0.4521), "45.2%");
  EXPECT_EQ(fraction_text(1.0), "100.0%");
  EXPECT_EQ(fraction_text(0.001), "0.1%");
  EXPECT_EQ(fraction_text(0), "0.0%");
  EXPECT_EQ(fraction_text(-0.05), "-5.0%");
  EXPECT_EQ(fraction_text(nan), "NaN");
  EXPECT_EQ(fraction_text(-inf), "-inf");
}

TEST(NumberText, BandwidthsHaveThreeSignificantDigitsAndADecimalPrefix) {
  EXPECT_EQ(bandwidth_text(2.93e12), "2.93 TB/s");
  EXPECT_EQ(bandwidth_text(3.35e12), "3.35 TB/s");
  EXPECT_EQ(bandwidth_text(812.4e9), "812 GB/s");
  EXPECT_EQ(bandwidth_text(999.99e9), "1.00 TB/s");
  EXPECT_EQ(bandwidth_text(512), "512 B/s");
  EXPECT_EQ(bandwidth_text(1.5e15), "1.50 PB/s");
  EXPECT_EQ(bandwidth_text(0), "0 B/s");
  EXPECT_EQ(bandwidth_text(nan), "NaN");
}

TEST(NumberText, FlopRatesLikeBandwidths) {
  EXPECT_EQ(flop_rate_text(6.7e13), "67.0 TFLOP/s");
  EXPECT_EQ(flop_rate_text(1e9), "1.00 GFLOP/s");
  EXPECT_EQ(flop_rate_text(0), "0 FLOP/s");
  EXPECT_EQ(flop_rate_text(inf), "inf");
}

TEST(NumberText, CountsArePlainDigits) {
  EXPECT_EQ(count_text(0), "0");
  EXPECT_EQ(count_text(1234567), "1234567");
  EXPECT_EQ(count_text(18446744073709551615ULL), "18446744073709551615");
}

} // namespace
} // namespace warpforge::vocabulary
