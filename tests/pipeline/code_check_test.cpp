// The build step's code check with the real NVRTC: a clock-reading candidate ends sass_rejected
// naming the instruction, f16 arithmetic on an f32 problem is incorrect where the problem forbids
// it and a note where it allows it, and the job's reference kernel is never checked.

#include "pipeline/build.hpp"
#include "pipeline/code_check.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;
using vocabulary::branch_outcome;

constexpr const char* timer_kernel = R"(
extern "C" __global__ void k(float* out) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  out[threadIdx.x] = (t & 1) ? 1.0f : 0.0f;
})";

constexpr const char* half_kernel = R"(
extern "C" __global__ void k(const float* a, float* out) {
  const int i = threadIdx.x;
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(a[i]));
  float back;
  asm("cvt.f32.f16 %0, %1;" : "=f"(back) : "h"(h));
  out[i] = back;
})";

constexpr const char* honest_kernel = R"(
extern "C" __global__ void k(const float* a, float* out) { out[threadIdx.x] = 2.0f * a[threadIdx.x]; })";

class CodeCheck : public ::testing::Test {
protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("wf-code-check-" + std::string{::testing::UnitTest::GetInstance()->current_test_info()->name()});
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  compile_order order_for(const char* source, std::int64_t branch, code_policy policy) {
    compile_order order;
    order.ref = {"c", "j", 1, branch};
    order.request.source = source;
    order.request.entry = "k";
    order.request.arch = "sm_90";
    order.output_dir = dir.string();
    order.file_stem = branch < 0 ? "reference-sm_90" : "kernel-sm_90";
    order.code = policy;
    return order;
  }
};

const code_policy f32_strict{gpu::ptx_float_type::f32, false};
const code_policy f32_relaxed{gpu::ptx_float_type::f32, true};

TEST_F(CodeCheck, a_candidate_reading_the_global_timer_ends_sass_rejected_naming_the_instruction) {
  const auto built = compile(order_for(timer_kernel, 1, f32_strict), gpu::compile_kernel);
  EXPECT_EQ(built.outcome, branch_outcome::sass_rejected);
  EXPECT_NE(built.log.find("%globaltimer"), std::string::npos) << built.log;
  EXPECT_NE(built.log.find("refused"), std::string::npos) << built.log;
  EXPECT_TRUE(built.cubin_path.empty());
  EXPECT_TRUE(fs::exists(dir / "kernel-sm_90.ptx"));     // the evidence stays in the branch's folder
  EXPECT_TRUE(fs::exists(dir / "kernel-sm_90.log"));
}

TEST_F(CodeCheck, the_reference_kernel_is_the_problems_own_and_is_not_checked) {
  const auto built = compile(order_for(timer_kernel, -1, f32_strict), gpu::compile_kernel);
  EXPECT_EQ(built.outcome, branch_outcome::passed) << built.log;
}

TEST_F(CodeCheck, f16_arithmetic_on_an_f32_problem_is_incorrect_where_forbidden_and_a_note_where_allowed) {
  const auto forbidden = compile(order_for(half_kernel, 1, f32_strict), gpu::compile_kernel);
  EXPECT_EQ(forbidden.outcome, branch_outcome::incorrect);
  EXPECT_NE(forbidden.log.find("cvt.rn.f16.f32"), std::string::npos) << forbidden.log;
  EXPECT_NE(forbidden.log.find("allow_lower_precision"), std::string::npos) << forbidden.log;
  const auto allowed = compile(order_for(half_kernel, 1, f32_relaxed), gpu::compile_kernel);
  EXPECT_EQ(allowed.outcome, branch_outcome::passed) << allowed.log;
  EXPECT_NE(allowed.note.find("lower precision"), std::string::npos) << allowed.note;
  EXPECT_NE(allowed.note.find("f16"), std::string::npos) << allowed.note;
}

TEST_F(CodeCheck, an_honest_kernel_passes_without_a_note) {
  const auto built = compile(order_for(honest_kernel, 1, f32_strict), gpu::compile_kernel);
  EXPECT_EQ(built.outcome, branch_outcome::passed) << built.log;
  EXPECT_TRUE(built.note.empty()) << built.note;
  EXPECT_FALSE(built.cubin_path.empty());
}

TEST(CodeCheckPolicy, f32_outputs_forbid_lower_precision_unless_the_spec_allows_it) {
  auto problem = config::load_problem(WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml");
  ASSERT_TRUE(problem) << to_string(problem.error());
  EXPECT_EQ(problem_float_type(*problem), config::dtype::f32);
  EXPECT_EQ(policy_for(*problem), f32_strict);
  problem->reference.allow_lower_precision = true;
  EXPECT_EQ(policy_for(*problem), f32_relaxed);
  config::problem_spec half;
  config::buffer_spec out;
  out.type = config::dtype::f16;
  out.role = config::arg_role::output;
  half.args = {out};
  EXPECT_TRUE(lower_precision_allowed(half)); // a narrow problem: its default is to allow
  EXPECT_EQ(policy_for(half).problem_type, gpu::ptx_float_type::f16);
  config::problem_spec integer;
  out.type = config::dtype::i32;
  integer.args = {out};
  EXPECT_EQ(policy_for(integer).problem_type, gpu::ptx_float_type::none);
  config::problem_spec mixed; // half inputs, float outputs: tensor cores on the halves are honest
  config::buffer_spec half_in;
  half_in.type = config::dtype::f16;
  half_in.role = config::arg_role::input;
  out.type = config::dtype::f32;
  mixed.args = {half_in, out};
  EXPECT_EQ(policy_for(mixed), f32_relaxed);
  mixed.reference.allow_lower_precision = false; // unless the spec says otherwise
  EXPECT_EQ(policy_for(mixed), f32_strict);
}

} // namespace
} // namespace warpforge::pipeline
