// The physical-limit gate's arithmetic on the H100 SXM's table figures (3350 GB/s DRAM, 50 MiB L2,
// 67 TFLOP/s fp32, 989.5 TFLOP/s fp16 tensor) for the transpose and SGEMM examples' shapes, and
// its decision: plausible, re-measure fresh and cold, suspicious.

#include "pipeline/physical_limit.hpp"

#include <gtest/gtest.h>

namespace warpforge::pipeline {
namespace {

diagnosis::gpu_profile h100() {
  diagnosis::device_properties device;
  device.name = "NVIDIA H100 80GB HBM3";
  return diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), device);
}

config::resolved_buffer buffer(config::arg_role role, std::uint64_t elements) {
  config::resolved_buffer b;
  b.role = role;
  b.count = elements;
  b.bytes = elements * 4; // f32
  return b;
}

config::resolved_problem transpose(std::uint64_t rows, std::uint64_t cols) {
  config::resolved_problem p;
  p.args = {buffer(config::arg_role::input, rows * cols), buffer(config::arg_role::output, rows * cols)};
  return p;
}

config::resolved_problem sgemm(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  config::resolved_problem p;
  p.args = {buffer(config::arg_role::input, m * k), buffer(config::arg_role::input, k * n),
            buffer(config::arg_role::output, m * n)};
  return p;
}

constexpr double l2 = 50.0 * 1024 * 1024;
constexpr double dram = 3350e9;

TEST(physical_limit, h100_peaks_come_from_the_table_by_precision_policy) {
  const auto strict = peaks_for(h100(), config::dtype::f32, false);
  ASSERT_TRUE(strict.dram_bytes_per_s);
  EXPECT_DOUBLE_EQ(*strict.dram_bytes_per_s, dram);
  EXPECT_DOUBLE_EQ(strict.l2_bytes, l2);
  ASSERT_TRUE(strict.flop_per_s);
  EXPECT_DOUBLE_EQ(*strict.flop_per_s, 67e12);
  EXPECT_EQ(strict.precision, "fp32");
  const auto relaxed = peaks_for(h100(), config::dtype::f32, true); // any precision: the fastest
  EXPECT_DOUBLE_EQ(*relaxed.flop_per_s, 1979e12);
  EXPECT_EQ(relaxed.precision, "fp8_tensor");
  EXPECT_DOUBLE_EQ(*peaks_for(h100(), config::dtype::f64, false).flop_per_s, 67e12); // DMMA
  EXPECT_FALSE(peaks_for(h100(), config::dtype::i32, false).flop_per_s);
}

TEST(physical_limit, an_8192_square_transpose_must_move_what_the_l2_cannot_hold) {
  const auto peaks = peaks_for(h100(), config::dtype::f32, false);
  const double bytes = 8192.0 * 8192 * 4; // each way
  const auto warm = limit_for(work_of(transpose(8192, 8192), vocabulary::timing_mode::warm), peaks);
  EXPECT_DOUBLE_EQ(warm.dram_bytes, 2 * bytes - l2);
  EXPECT_NEAR(warm.seconds(), (2 * bytes - l2) / dram, 1e-12);
  EXPECT_NEAR(warm.seconds(), 144.6e-6, 0.1e-6);
  EXPECT_EQ(warm.compute_s, 0.0); // no FLOP declared
  const auto cold = limit_for(work_of(transpose(8192, 8192), vocabulary::timing_mode::cold), peaks);
  EXPECT_DOUBLE_EQ(cold.dram_bytes, bytes + (bytes - l2));
  EXPECT_NE(warm.basis.find("DRAM"), std::string::npos) << warm.basis;
  // A 1024 x 1024 transpose (8 MiB) fits in the L2: no memory floor when warm; cold it reads 4 MiB.
  EXPECT_FALSE(limit_for(work_of(transpose(1024, 1024), vocabulary::timing_mode::warm), peaks).known());
  EXPECT_NEAR(limit_for(work_of(transpose(1024, 1024), vocabulary::timing_mode::cold), peaks).seconds(),
              1024.0 * 1024 * 4 / dram, 1e-12);
}

TEST(physical_limit, a_4096_sgemm_is_bound_by_its_flop_at_the_precision_it_may_use) {
  const double flop = 2.0 * 4096 * 4096 * 4096;
  const auto strict = limit_for(work_of(sgemm(4096, 4096, 4096), vocabulary::timing_mode::warm, flop),
                                peaks_for(h100(), config::dtype::f32, false));
  EXPECT_NEAR(strict.compute_s, flop / 67e12, 1e-12); // 2.05 ms
  EXPECT_NEAR(strict.seconds(), 2.051e-3, 0.001e-3);
  EXPECT_LT(strict.memory_s, strict.compute_s);
  EXPECT_NE(strict.basis.find("fp32"), std::string::npos) << strict.basis;
  const auto relaxed = limit_for(work_of(sgemm(4096, 4096, 4096), vocabulary::timing_mode::warm, flop),
                                 peaks_for(h100(), config::dtype::f32, true));
  EXPECT_NEAR(relaxed.compute_s, flop / 1979e12, 1e-12);
  EXPECT_LT(relaxed.seconds(), strict.seconds());
}

TEST(physical_limit, the_gate_reverifies_below_the_margin_then_calls_it_suspicious) {
  const auto limit = limit_for(work_of(transpose(8192, 8192), vocabulary::timing_mode::warm),
                               peaks_for(h100(), config::dtype::f32, false));
  const double at_limit = limit.seconds();
  EXPECT_EQ(judge(180e-6, limit, false), limit_verdict::plausible);                 // a good transpose
  EXPECT_EQ(judge(at_limit * (1 - physical_limit_margin), limit, false), limit_verdict::plausible);
  EXPECT_EQ(judge(at_limit * 0.5, limit, false), limit_verdict::reverify_cold);
  EXPECT_EQ(judge(at_limit * 0.5, limit, true), limit_verdict::suspicious);
  EXPECT_EQ(judge(1e-9, physical_limit{}, true), limit_verdict::plausible); // nothing known: no gate
  const auto detail = limit_detail(2e-6, 3e-6, limit);
  EXPECT_NE(detail.find("2 us"), std::string::npos) << detail;
  EXPECT_NE(detail.find("3 us"), std::string::npos) << detail;
  EXPECT_NE(detail.find("145 us"), std::string::npos) << detail;
  for (auto v : all_limit_verdicts)
    EXPECT_FALSE(to_string(v).empty());
}

} // namespace
} // namespace warpforge::pipeline
