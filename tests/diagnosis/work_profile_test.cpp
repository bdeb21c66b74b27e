// What work a kernel does, from recorded metric sets (metric_sets.hpp), and the fraction of peak
// on the axis that binds it (issue 11: the naive SGEMM's summary said 0.6%, its DRAM fraction,
// where the FP32 roof gives about 10%).

#include "diagnosis/diagnose.hpp"
#include "diagnosis/render.hpp"
#include "diagnosis/work_profile.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

using namespace warpforge::diagnosis;
using namespace warpforge::diagnosis::testing;

namespace {

/// The metrics with the schema's derived ones (flop_*, dram_bytes), as diagnose() sees them.
metric_values completed(const metric_values& m) { return builtin_metric_schema().complete(m).values; }

diagnosis diagnosed(const metric_values& m) {
  return diagnose(m, describe_gpu(builtin_gpu_table(), h100_sxm_device()));
}

} // namespace

TEST(work_profile, every_verdict_round_trips_through_its_name) {
  for (auto verdict : all_work_verdicts)
    EXPECT_EQ(work_verdict_from_string(to_string(verdict)), verdict);
  EXPECT_EQ(work_verdict_from_string("maybe"), std::nullopt);
}

TEST(work_profile, the_naive_transpose_does_no_arithmetic_and_no_matrix_multiply) {
  const auto d = diagnosed(naive_transpose());
  EXPECT_EQ(d.work.flop, 0.0);
  EXPECT_NEAR(*d.work.dram_bytes, 134.22e6, 1e3);
  EXPECT_EQ(d.work.arithmetic.verdict, work_verdict::no);
  EXPECT_NE(d.work.arithmetic.reason.find("0 FLOP over 1.34e+08 bytes"), std::string::npos)
      << d.work.arithmetic.reason;
  EXPECT_EQ(d.work.matrix_multiply.verdict, work_verdict::no);
  EXPECT_NE(d.work.matrix_multiply.reason.find("no arithmetic"), std::string::npos);
}

TEST(work_profile, the_naive_sgemm_multiplies_matrices_with_fp32_fmas) {
  const auto d = diagnosed(naive_sgemm_2048());
  EXPECT_NEAR(*d.work.flop, 1.718e10, 1e7);
  EXPECT_NEAR(*d.work.intensity, 341.4, 0.5);
  EXPECT_EQ(d.work.arithmetic.verdict, work_verdict::yes);
  EXPECT_EQ(d.work.matrix_multiply.verdict, work_verdict::yes);
  EXPECT_NE(d.work.matrix_multiply.reason.find("reused operands"), std::string::npos);
}

TEST(work_profile, elementwise_arithmetic_is_arithmetic_but_no_matrix_multiply) {
  // A softmax-like row kernel: about 2 FLOP per byte moved, FP32 pipe in use.
  metric_values m{{"ffma_instructions", 3.0e7}, {"fadd_instructions", 2.0e7},
                  {"fmul_instructions", 1.0e7}, {"dram_bytes_read", 2.0e7},
                  {"dram_bytes_write", 2.0e7}, {"fp32_pipe", 0.3}};
  const auto w = profile_work(completed(m));
  EXPECT_DOUBLE_EQ(*w.intensity, 9.0e7 / 4.0e7);
  EXPECT_EQ(w.arithmetic.verdict, work_verdict::yes);
  EXPECT_EQ(w.matrix_multiply.verdict, work_verdict::no);
  EXPECT_NE(w.matrix_multiply.reason.find("no dot products for tensor cores"), std::string::npos);
}

TEST(work_profile, an_active_tensor_pipe_is_a_matrix_multiply_whatever_the_fp32_flop) {
  const auto w = profile_work(completed({{"tensor_hmma_pipe", 0.45}, {"ffma_instructions", 0},
                                         {"fadd_instructions", 0}, {"fmul_instructions", 0},
                                         {"dram_bytes_read", 1e8}, {"dram_bytes_write", 1e7}}));
  EXPECT_EQ(w.arithmetic.verdict, work_verdict::yes);
  EXPECT_EQ(w.matrix_multiply.verdict, work_verdict::yes);
}

TEST(work_profile, without_flop_counters_the_pipes_decide_and_nothing_measured_is_unknown) {
  EXPECT_EQ(profile_work(completed({{"fp32_pipe", 0.0}, {"dram_bytes_read", 1e6}})).arithmetic.verdict,
            work_verdict::no);
  EXPECT_EQ(profile_work(completed({{"fp32_pipe", 0.2}})).arithmetic.verdict, work_verdict::yes);
  const auto none = profile_work(completed({{"dram_bytes_read", 1e6}, {"dram_bytes_write", 1e6}}));
  EXPECT_EQ(none.arithmetic.verdict, work_verdict::unknown);
  EXPECT_EQ(none.matrix_multiply.verdict, work_verdict::unknown);
}

TEST(peak_fraction, the_naive_sgemm_is_about_ten_percent_of_the_fp32_roof_not_its_dram_fraction) {
  const auto d = diagnosed(naive_sgemm_2048());
  const auto& r = d.roofline;
  ASSERT_TRUE(r.binding_axis && r.peak_fraction);
  EXPECT_EQ(*r.binding_axis, roofline_axis::compute); // 341 FLOP/byte, ridge 20
  EXPECT_EQ(r.dominant_precision, precision::fp32);
  EXPECT_DOUBLE_EQ(*r.peak_flops, 67.0e12); // FP32 non-tensor, gpu_specs.toml
  EXPECT_NEAR(*r.achieved_flops, 6.9e12, 0.01e12);
  EXPECT_NEAR(*r.peak_fraction, 0.103, 0.001);
  EXPECT_NEAR(*r.bandwidth_fraction, 0.006, 0.0005); // the 0.6% issue 11 saw as "peak fraction"
  const auto text = render_text(d);
  EXPECT_NE(text.find("peak fraction: 10.3 % on the compute axis, against 67 TFLOP/s (fp32, "
                      "non-tensor)"),
            std::string::npos)
      << text;
}

TEST(peak_fraction, without_flop_counters_the_binding_axis_is_unknown_not_the_dram_fraction) {
  const auto d = diagnosed(naive_sgemm_2048(false));
  EXPECT_TRUE(d.roofline.bandwidth_fraction.has_value());
  EXPECT_FALSE(d.roofline.binding_axis.has_value());
  EXPECT_FALSE(d.roofline.peak_fraction.has_value());
  EXPECT_NE(render_text(d).find("peak fraction: unknown"), std::string::npos);
}

TEST(peak_fraction, a_kernel_without_flop_is_held_to_the_bandwidth_roof) {
  const auto d = diagnosed(naive_transpose());
  ASSERT_TRUE(d.roofline.binding_axis);
  EXPECT_EQ(*d.roofline.binding_axis, roofline_axis::memory);
  EXPECT_EQ(d.roofline.peak_fraction, d.roofline.bandwidth_fraction);
  EXPECT_NEAR(*d.roofline.peak_fraction, 134.22e6 / 89.6e-6 / 3.35e12, 1e-3);
}
