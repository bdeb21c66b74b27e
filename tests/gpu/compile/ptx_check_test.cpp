// The PTX check on kernels compiled with the real NVRTC: the tricks it refuses (a device-side
// launch, the global timer, the SM clock), f16 arithmetic on an f32 problem, and the example
// kernels, which must pass untouched (false positives would refuse honest work).

#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/compile/ptx_check.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace warpforge::gpu;

namespace {

compile_request request_for(std::string source, std::string entry = "k") {
  compile_request request;
  request.source = std::move(source);
  request.source_name = "candidate.cu";
  request.entry = std::move(entry);
  request.arch = "sm_90";
  return request;
}

ptx_scan scan_of(const compile_request& request, ptx_float_type problem = ptx_float_type::f32) {
  auto compiled = compile_kernel(request);
  EXPECT_TRUE(compiled) << compiled.error().log;
  return compiled ? scan_ptx(compiled->ptx, problem) : ptx_scan{};
}

constexpr const char* device_launch_kernel = R"(
extern "C" __global__ void child(float* x) { x[threadIdx.x] = 1.0f; }
extern "C" __global__ void k(float* x) { if (threadIdx.x == 0) child<<<1, 32>>>(x); }
)";

std::string example_kernel(const std::string& name) {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/examples/" + name + "/kernel.cu"};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

TEST(ptx_check, a_device_side_launch_does_not_compile_without_rdc) {
  // NVRTC refuses it outright (the CDP runtime is not declared): a compile_error before any check.
  auto compiled = compile_kernel(request_for(device_launch_kernel));
  ASSERT_FALSE(compiled);
  EXPECT_EQ(compiled.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(compiled.error().log.find("device-side kernel launch"), std::string::npos) << compiled.error().log;
}

TEST(ptx_check, a_device_side_launch_compiled_with_rdc_is_refused_naming_the_cdp_call) {
  auto request = request_for(device_launch_kernel);
  request.extra_flags = {"-rdc=true"};
  const auto scan = scan_of(request);
  ASSERT_EQ(scan.refused.size(), 1u);
  EXPECT_EQ(scan.refused[0].kind, ptx_finding_kind::device_launch);
  EXPECT_NE(scan.refused[0].what.find("cudaCDP"), std::string::npos) << scan.refused[0].what;
  EXPECT_NE(describe(scan.refused[0]).find("dynamic parallelism"), std::string::npos);
}

TEST(ptx_check, reading_the_global_timer_is_refused) {
  const auto scan = scan_of(request_for(R"(
extern "C" __global__ void k(float* x, unsigned long long deadline) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  if (now < deadline) x[threadIdx.x] = 1.0f;
})"));
  ASSERT_FALSE(scan.refused.empty());
  EXPECT_EQ(scan.refused[0].kind, ptx_finding_kind::timer_read);
  EXPECT_EQ(scan.refused[0].what, "%globaltimer");
  EXPECT_NE(describe(scan.refused[0]).find("mov.u64"), std::string::npos) << describe(scan.refused[0]);
}

TEST(ptx_check, the_low_half_of_the_global_timer_is_refused_too) {
  const auto scan = scan_of(request_for(R"(
extern "C" __global__ void k(float* x) {
  unsigned int now;
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(now));
  x[threadIdx.x] = (now & 1) ? 1.0f : 0.0f;
})"));
  ASSERT_FALSE(scan.refused.empty());
  EXPECT_EQ(scan.refused[0].what, "%globaltimer_lo");
}

TEST(ptx_check, clock64_and_clock_are_refused) {
  for (const char* call : {"clock64()", "clock()"}) {
    const auto scan = scan_of(request_for(std::string{R"(
extern "C" __global__ void k(float* x) { x[threadIdx.x] = (float))"} + call + "; }"));
    ASSERT_FALSE(scan.refused.empty()) << call;
    EXPECT_EQ(scan.refused[0].kind, ptx_finding_kind::timer_read) << call;
    EXPECT_TRUE(scan.refused[0].what == "%clock64" || scan.refused[0].what == "%clock") << scan.refused[0].what;
  }
}

TEST(ptx_check, a_nanosleep_wait_is_not_refused) {
  // CUB's decoupled look-back backs off with __nanosleep: a sleep alone tells the kernel no time.
  const auto scan = scan_of(request_for(R"(
extern "C" __global__ void k(float* x) { __nanosleep(100); x[threadIdx.x] = 1.0f; })"));
  EXPECT_TRUE(scan.refused.empty()) << describe(scan.refused.front());
}

TEST(ptx_check, f16_arithmetic_on_an_f32_problem_is_narrowing_and_on_an_f16_problem_is_not) {
  auto request = request_for(R"(#include <cuda_fp16.h>
extern "C" __global__ void k(const float* a, const float* b, float* c) {
  const int i = threadIdx.x;
  const __half x = __float2half(a[i]), y = __float2half(b[i]);
  c[i] = __half2float(__hfma(x, y, x));
})");
  request.include_dirs = {WARPFORGE_CUDA_INCLUDE_DIR};
  const auto on_f32 = scan_of(request, ptx_float_type::f32);
  EXPECT_TRUE(on_f32.refused.empty());
  ASSERT_FALSE(on_f32.narrowing.empty());
  EXPECT_EQ(on_f32.narrowing[0].what, "f16");
  EXPECT_NE(on_f32.narrowing[0].instruction.find("cvt.rn.f16.f32"), std::string::npos)
      << on_f32.narrowing[0].instruction;
  EXPECT_GE(on_f32.narrowing_count, 3u); // two conversions down and the fma
  EXPECT_TRUE(scan_of(request, ptx_float_type::f16).narrowing.empty());
}

TEST(ptx_check, the_example_kernels_pass_without_a_finding) {
  for (const auto& [name, entry] : std::vector<std::pair<std::string, std::string>>{
           {"vector_add", "vector_add"}, {"sgemm", "sgemm"}, {"transpose", "transpose"},
           {"softmax", "softmax"}, {"row_reduction", "row_sum"}}) {
    const auto scan = scan_of(request_for(example_kernel(name), entry));
    EXPECT_TRUE(scan.refused.empty()) << name << ": " << describe(scan.refused.front());
    EXPECT_TRUE(scan.narrowing.empty()) << name << ": " << describe(scan.narrowing.front());
  }
}

TEST(ptx_check, an_f64_problem_computing_in_f32_is_narrowing) {
  const auto scan = scan_ptx("\tcvt.rn.f32.f64 \t%f1, %fd1;\n\tfma.rn.f32 \t%f2, %f1, %f1, %f1;\n", ptx_float_type::f64);
  ASSERT_EQ(scan.narrowing.size(), 2u);
  EXPECT_EQ(scan.narrowing[0].line, 1u);
  EXPECT_EQ(scan.narrowing[1].what, "f32");
  EXPECT_TRUE(scan_ptx("\tcvt.rn.f32.f64 \t%f1, %fd1;\n", ptx_float_type::f32).narrowing.empty());
}

TEST(ptx_check, tensor_core_mma_in_f16_and_tf32_conversions_are_narrowing_on_an_f32_problem) {
  const auto scan = scan_ptx(
      "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};\n"
      "  cvt.rna.tf32.f32 %r9, %f9;\n"
      "  @%p1 fma.rn.bf16x2 %r1, %r2, %r3, %r4;\n"
      "  cvt.f32.f16 %f1, %rs1;\n"      // widening: not narrowing
      "  ld.global.nc.f32 %f2, [%rd1];\n", // not arithmetic
      ptx_float_type::f32);
  ASSERT_EQ(scan.narrowing.size(), 3u);
  EXPECT_EQ(scan.narrowing[0].what, "f16");
  EXPECT_EQ(scan.narrowing[1].what, "tf32");
  EXPECT_EQ(scan.narrowing[2].what, "bf16");
}

TEST(ptx_check, finding_kinds_round_trip_through_their_names) {
  for (auto kind : all_ptx_finding_kinds)
    EXPECT_EQ(ptx_finding_kind_from_string(to_string(kind)), kind);
  EXPECT_FALSE(ptx_finding_kind_from_string("sleep"));
}
