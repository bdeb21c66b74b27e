// Issue 26: what makes two candidates of a job the same kernel (pipeline/content_key.hpp), and
// which defines a candidate is compiled with (build.hpp), on the SGEMM example with real NVRTC:
// a model's variant stands alone, the tuner's points keep their tunables.

#include "pipeline/build.hpp"
#include "pipeline/content_key.hpp"

#include "config/problem_spec.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace warpforge::pipeline {
namespace {

const std::string sgemm = WARPFORGE_SOURCE_DIR "/examples/sgemm/problem.toml";

job_setup sgemm_job() {
  auto spec = config::load_problem(sgemm);
  if (!spec)
    throw std::runtime_error(toml_reader::to_string(spec.error()));
  auto job = open_job("sgemm", sgemm, std::move(*spec));
  if (!job)
    throw std::runtime_error(job.error());
  return std::move(*job);
}

// A model's variant that sets the block shape itself, without #ifndef: under the baseline's
// -DBLOCK_X=16 it met a second definition.
const std::string own_block = R"(#define BLOCK_X 32
#define BLOCK_Y 8
extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
sgemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
  const int col = blockIdx.x * BLOCK_X + threadIdx.x;
  const int row = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (row >= m || col >= n)
    return;
  float sum = 0.0f; // "the sum"
  for (int i = 0; i < k; ++i)
    sum += a[row * k + i] * b[i * n + col];
  c[row * n + col] = sum;
}
)";

candidate model_variant(std::string code, config::tunable_point defines = {}) {
  const auto job = sgemm_job();
  candidate c;
  c.point = job.defaults.point;
  c.compiled_defines = define_set::own_only;
  c.source = std::move(code);
  c.source_name = "own_block.cu";
  c.defines = std::move(defines);
  return c;
}

std::vector<std::string> define_names(const gpu::compile_request& r) {
  std::vector<std::string> names;
  for (const auto& d : r.defines)
    names.push_back(d.name + "=" + d.value);
  return names;
}

TEST(CompiledDefines, AModelVariantIsCompiledWithItsOwnDefinesOnlyAndRecordsExactlyThem) {
  const auto job = sgemm_job();
  const auto variant = model_variant(own_block, {{"TM", 4}});
  const auto resolved = resolve_branch(job, variant);
  ASSERT_TRUE(resolved) << resolved.error();
  const auto order = compile_order_for(job, variant, resolved->front(), {}, "sm_90", {});
  EXPECT_EQ(define_names(order.request), std::vector<std::string>{"TM=4"}) << "no BLOCK_X / BLOCK_Y of the baseline";
  EXPECT_EQ(recorded_defines(variant), (config::tunable_point{{"TM", 4}}));
  auto built = gpu::compile_kernel(order.request);
  ASSERT_TRUE(built) << built.error().log;
  EXPECT_EQ(built->log.find("redefinition"), std::string::npos) << built->log;

  // What it met before: the baseline's tunables first, then its own #define.
  auto before = order.request;
  before.defines.insert(before.defines.begin(), {{"BLOCK_X", "16"}, {"BLOCK_Y", "16"}});
  auto clashed = gpu::compile_kernel(before);
  const std::string log = clashed ? clashed->log : clashed.error().log;
  EXPECT_NE(log.find("redefinition"), std::string::npos) << "NVRTC no longer reports the clash: " << log;
}

TEST(CompiledDefines, TheTunersPointAndTheBaselineKeepTheirTunablesThenTheirOwn) {
  const auto job = sgemm_job();
  candidate tuned = job.baseline;
  tuned.kind = vocabulary::branch_kind::branch;
  tuned.point["BLOCK_X"] = 32;
  tuned.defines = {{"EXTRA", 1}};
  const auto resolved = resolve_branch(job, tuned);
  ASSERT_TRUE(resolved) << resolved.error();
  const auto order = compile_order_for(job, tuned, resolved->front(), {}, "sm_90", {});
  EXPECT_EQ(define_names(order.request), (std::vector<std::string>{"BLOCK_X=32", "BLOCK_Y=16", "EXTRA=1"}));
  EXPECT_EQ(recorded_defines(tuned), (config::tunable_point{{"BLOCK_X", 32}, {"BLOCK_Y", 16}, {"EXTRA", 1}}));
}

TEST(DefineSet, EveryValueHasItsWord) {
  for (auto set : all_define_sets)
    EXPECT_EQ(define_set_from_string(to_string(set)), set);
  EXPECT_FALSE(define_set_from_string("tunables"));
}

TEST(NormalisedSource, CommentsAndWhitespaceGoStringsStay) {
  EXPECT_EQ(normalised_source("  int  a =\t1;   // one\n\n\n/* two\n lines */ int b;\r\n"), "int a = 1;\nint b;\n");
  EXPECT_EQ(normalised_source("const char* s = \"a  // b\";\n"), "const char* s = \"a  // b\";\n")
    << "a literal's spaces and slashes are its own";
  EXPECT_EQ(normalised_source("char c = '\\t'; int n = 1'000;  int m;\n"), "char c = '\\t'; int n = 1'000; int m;\n");
  EXPECT_NE(normalised_source("#define A 1\nint b;\n"), normalised_source("#define A 1 int b;\n"))
    << "line ends stay: a directive ends at its line";
}

TEST(ContentKey, TheSameKernelRewrittenWithOtherCommentsAndSpacingHasTheSameKey) {
  const auto job = sgemm_job();
  const auto a = model_variant(own_block);
  auto b = model_variant("// a new header comment\n" + own_block);
  b.source.replace(b.source.find("float sum = 0.0f;"), 17, "float   sum = 0.0f;   /* again */");
  b.source_name = "renamed.cu";
  EXPECT_EQ(content_key_of(job, a, "sm_90"), content_key_of(job, b, "sm_90"));
  EXPECT_EQ(content_key_of(job, a, "sm_90").size(), 64u);
}

TEST(ContentKey, CodeStringsDefinesFlagsLaunchAndArchEachChangeTheKey) {
  const auto job = sgemm_job();
  const auto base = model_variant(own_block);
  const auto key = content_key_of(job, base, "sm_90");
  auto code = base;
  code.source.replace(code.source.find("sum += a"), 8, "sum -= a");
  auto literal = base;
  literal.source.replace(literal.source.find("\"the sum\""), 9, "\"the  sum\"");
  auto defines = model_variant(own_block, {{"TM", 4}});
  auto launch = base;
  launch.launch = config::launch_geometry{{64, 256, 1}, {32, 8, 1}, 0};
  auto tunables = base;
  tunables.compiled_defines = define_set::tunables_and_own;
  for (const auto* changed : {&code, &defines, &launch, &tunables})
    EXPECT_NE(content_key_of(job, *changed, "sm_90"), key);
  EXPECT_EQ(content_key_of(job, literal, "sm_90"), key) << "that \"string\" is inside a // comment";
  EXPECT_NE(content_key_of(job, base, "sm_90a"), key);
  auto string_code = model_variant("const char* s = \"a b\";\n" + own_block);
  auto string_changed = model_variant("const char* s = \"a  b\";\n" + own_block);
  EXPECT_NE(content_key_of(job, string_code, "sm_90"), content_key_of(job, string_changed, "sm_90"))
    << "whitespace inside a string literal is content";
}

} // namespace
} // namespace warpforge::pipeline
