#include "diagnosis/metric_unit.hpp"

#include <gtest/gtest.h>

#include <limits>

using namespace warpforge::diagnosis;

TEST(metric_unit, every_unit_round_trips_through_its_name_and_has_a_symbol_entry) {
  for (auto unit : all_metric_units) {
    EXPECT_EQ(metric_unit_from_string(to_string(unit)), unit) << to_string(unit);
    EXPECT_EQ(symbol(unit).empty(), unit == metric_unit::count) << to_string(unit);
  }
  EXPECT_FALSE(metric_unit_from_string("percent"));
  EXPECT_FALSE(metric_unit_from_string(""));
}

TEST(metric_unit, nsight_percentages_become_ratios) {
  EXPECT_DOUBLE_EQ(*from_nsight(91.04, "%", metric_unit::ratio), 0.9104);
  EXPECT_DOUBLE_EQ(*from_nsight(100.0, "%", metric_unit::ratio), 1.0);
}

TEST(metric_unit, nsight_durations_become_seconds_whatever_the_prefix) {
  EXPECT_DOUBLE_EQ(*from_nsight(178020.0, "nsecond", metric_unit::seconds), 178.02e-6);
  EXPECT_DOUBLE_EQ(*from_nsight(178.02, "usecond", metric_unit::seconds), 178.02e-6);
  EXPECT_DOUBLE_EQ(*from_nsight(2.0, "msecond", metric_unit::seconds), 2e-3);
  EXPECT_DOUBLE_EQ(*from_nsight(1.5, "second", metric_unit::seconds), 1.5);
}

TEST(metric_unit, nsight_byte_prefixes_are_si_powers_of_1000) {
  EXPECT_DOUBLE_EQ(*from_nsight(268.44, "Mbyte", metric_unit::bytes), 268.44e6);
  EXPECT_DOUBLE_EQ(*from_nsight(4.0, "Kbyte", metric_unit::bytes), 4000.0);
  EXPECT_DOUBLE_EQ(*from_nsight(1.5, "Gbyte", metric_unit::bytes), 1.5e9);
  EXPECT_DOUBLE_EQ(*from_nsight(512.0, "byte", metric_unit::bytes), 512.0);
  EXPECT_DOUBLE_EQ(*from_nsight(48.0, "Kbyte/block", metric_unit::bytes), 48000.0);
  EXPECT_DOUBLE_EQ(*from_nsight(3.02, "Tbyte/second", metric_unit::bytes_per_second), 3.02e12);
}

TEST(metric_unit, counts_accept_their_nsight_words_and_scale_prefixed_ones) {
  EXPECT_DOUBLE_EQ(*from_nsight(2097152.0, "request", metric_unit::requests), 2097152.0);
  EXPECT_DOUBLE_EQ(*from_nsight(16.0, "register/thread", metric_unit::registers_per_thread), 16.0);
  EXPECT_DOUBLE_EQ(*from_nsight(0.28, "inst/cycle", metric_unit::instructions_per_cycle), 0.28);
  EXPECT_DOUBLE_EQ(*from_nsight(8.39, "Msector", metric_unit::sectors), 8.39e6);
  EXPECT_DOUBLE_EQ(*from_nsight(248.24, "", metric_unit::waves), 248.24);
}

TEST(metric_unit, a_unit_of_the_wrong_kind_is_an_error_naming_both_units) {
  const auto percent_as_bytes = from_nsight(50.0, "%", metric_unit::bytes);
  ASSERT_FALSE(percent_as_bytes);
  EXPECT_NE(percent_as_bytes.error().find("'%'"), std::string::npos) << percent_as_bytes.error();
  EXPECT_NE(percent_as_bytes.error().find("'bytes'"), std::string::npos)
      << percent_as_bytes.error();
  EXPECT_FALSE(from_nsight(1.0, "usecond", metric_unit::bytes));
  EXPECT_FALSE(from_nsight(1.0, "byte", metric_unit::ratio));
  EXPECT_FALSE(from_nsight(1.0, "", metric_unit::seconds));
  EXPECT_FALSE(from_nsight(1.0, "Gbyte/second", metric_unit::bytes));
}

TEST(metric_unit, the_base_units_are_what_ncu_prints_with_print_units_base) {
  EXPECT_EQ(nsight_base_unit(metric_unit::ratio), "%");
  EXPECT_EQ(nsight_base_unit(metric_unit::seconds), "nsecond");
  EXPECT_EQ(nsight_base_unit(metric_unit::bytes), "byte");
  EXPECT_EQ(nsight_base_unit(metric_unit::bytes_per_second), "byte/second");
  EXPECT_EQ(nsight_base_unit(metric_unit::warps), "");
  for (auto unit : all_metric_units)
    EXPECT_DOUBLE_EQ(*from_nsight(1.0, nsight_base_unit(unit), unit),
                     unit == metric_unit::ratio ? 0.01 : unit == metric_unit::seconds ? 1e-9 : 1.0)
      << to_string(unit);
}

TEST(metric_unit, values_print_with_units_for_people) {
  EXPECT_EQ(format_value(0.9104, metric_unit::ratio), "91.0 %");
  EXPECT_EQ(format_value(178.02e-6, metric_unit::seconds), "178 us");
  EXPECT_EQ(format_value(2.5e-3, metric_unit::seconds), "2.5 ms");
  EXPECT_EQ(format_value(536.88e6, metric_unit::bytes), "537 MB");
  EXPECT_EQ(format_value(3.016e12, metric_unit::bytes_per_second), "3.02 TB/s");
  EXPECT_EQ(format_value(2e12, metric_unit::flop_per_second), "2 TFLOP/s");
  EXPECT_EQ(format_value(16, metric_unit::registers_per_thread), "16 registers/thread");
  EXPECT_EQ(format_value(0.28, metric_unit::instructions_per_cycle), "0.28 inst/cycle");
  EXPECT_EQ(format_value(262144, metric_unit::count), "262144");
  EXPECT_EQ(format_value(std::numeric_limits<double>::quiet_NaN(), metric_unit::ratio), "n/a");
}
