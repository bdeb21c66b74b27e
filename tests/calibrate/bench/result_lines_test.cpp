#include "calibrate/bench/result_lines.hpp"

#include <gtest/gtest.h>

using namespace warpforge::calibrate;

TEST(calibrate_bench_result_lines, reads_the_value_and_the_sm_clock) {
  const auto out = read_output("# device: NVIDIA H100, sm_90, 132 SMs\n"
                               "RESULT: value=4.03125 sm_clock_mhz=1755\n");
  EXPECT_EQ(out.problem, "");
  ASSERT_TRUE(out.value);
  EXPECT_DOUBLE_EQ(*out.value, 4.03125);
  ASSERT_TRUE(out.sm_clock_mhz);
  EXPECT_DOUBLE_EQ(*out.sm_clock_mhz, 1755);
  EXPECT_TRUE(out.curve.empty());
}

TEST(calibrate_bench_result_lines, reads_a_curve_in_printed_order) {
  const auto out = read_output("RESULT: curve_x=8192 curve_y=33.5\n"
                               "RESULT: curve_x=1.6384e+04 curve_y=34\n"
                               "RESULT: curve_x=524288 curve_y=261.2\n"
                               "RESULT: value=256 sm_clock_mhz=1.98e3\n");
  EXPECT_EQ(out.problem, "");
  ASSERT_EQ(out.curve.size(), 3u);
  EXPECT_DOUBLE_EQ(out.curve[1].x, 16384);
  EXPECT_DOUBLE_EQ(out.curve[1].y, 34);
  EXPECT_DOUBLE_EQ(out.curve[2].x, 524288);
  EXPECT_DOUBLE_EQ(out.curve[2].y, 261.2);
  EXPECT_DOUBLE_EQ(*out.value, 256);
  EXPECT_DOUBLE_EQ(*out.sm_clock_mhz, 1980);
}

TEST(calibrate_bench_result_lines, ignores_names_it_does_not_know) {
  const auto out = read_output("RESULT: value=3 sm_clock_mhz=1700 blocks=132\n");
  EXPECT_EQ(out.problem, "");
  EXPECT_DOUBLE_EQ(*out.value, 3);
}

TEST(calibrate_bench_result_lines, a_run_without_a_value_is_a_problem) {
  const auto out = read_output("RESULT: curve_x=1 curve_y=2\nERROR: nothing\n");
  EXPECT_FALSE(out.value);
  EXPECT_EQ(out.curve.size(), 1u);
  EXPECT_EQ(out.problem, "no RESULT value");
}

TEST(calibrate_bench_result_lines, a_second_value_is_a_problem) {
  const auto out = read_output("RESULT: value=1 sm_clock_mhz=1700\nRESULT: value=2\n");
  EXPECT_EQ(out.problem, "more than one RESULT value");
}

TEST(calibrate_bench_result_lines, a_curve_x_must_be_followed_by_its_curve_y) {
  EXPECT_EQ(read_output("RESULT: curve_x=1\nRESULT: value=1\n").problem,
            "a curve_x with no curve_y after it");
  EXPECT_EQ(read_output("RESULT: curve_y=1 value=1\n").problem,
            "a curve_y with no curve_x before it");
}

TEST(calibrate_bench_result_lines, a_malformed_result_line_is_a_problem_naming_its_line) {
  const auto out = read_output("hello\nRESULT: value=abc\n");
  EXPECT_FALSE(out.value);
  EXPECT_NE(out.problem.find("output line 2"), std::string::npos) << out.problem;
}

TEST(calibrate_bench_result_lines, a_clock_of_zero_is_a_problem) {
  const auto out = read_output("RESULT: value=4 sm_clock_mhz=0\n");
  EXPECT_DOUBLE_EQ(*out.value, 4);
  EXPECT_NE(out.problem.find("SM clock"), std::string::npos) << out.problem;
}

TEST(calibrate_bench_result_lines, empty_output_has_no_value) {
  EXPECT_EQ(read_output("").problem, "no RESULT value");
}

TEST(calibrate_bench_result_lines, reads_a_latencys_index_chase_figure_apart_from_the_raw_one) {
  const auto out = read_output("RESULT: value=32 sm_clock_mhz=1980\nRESULT: raw_chase_cycles=35\n"
                               "RESULT: index_chase_cycles=39\n");
  ASSERT_TRUE(out.index_chase_cycles);
  EXPECT_DOUBLE_EQ(*out.index_chase_cycles, 39);
  EXPECT_DOUBLE_EQ(*out.raw_chase_cycles, 35);
  EXPECT_TRUE(out.problem.empty());
  const auto twice = read_output("RESULT: value=32 sm_clock_mhz=1980\nRESULT: index_chase_cycles=39\n"
                                 "RESULT: index_chase_cycles=40\n");
  EXPECT_EQ(twice.problem, "more than one RESULT index_chase_cycles");
}

TEST(calibrate_bench_result_lines, reads_a_latencys_raw_chase_figure_and_refuses_a_second) {
  const auto out = read_output("# ring seed: 123\nRESULT: value=32.0031 sm_clock_mhz=1980\n"
                               "RESULT: raw_chase_cycles=41\n");
  EXPECT_EQ(out.problem, "");
  ASSERT_TRUE(out.raw_chase_cycles);
  EXPECT_DOUBLE_EQ(*out.raw_chase_cycles, 41);
  EXPECT_FALSE(read_output("RESULT: value=4 sm_clock_mhz=1980\n").raw_chase_cycles);
  const auto twice = read_output("RESULT: value=4 sm_clock_mhz=1980\nRESULT: raw_chase_cycles=41\n"
                                 "RESULT: raw_chase_cycles=42\n");
  EXPECT_EQ(twice.problem, "more than one RESULT raw_chase_cycles");
}
