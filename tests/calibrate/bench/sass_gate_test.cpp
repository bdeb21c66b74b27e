#include "calibrate/bench/sass_gate.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace warpforge::calibrate;

namespace {

// Real `cuobjdump -sass` dumps of the benchmarks (fixtures/make_dumps.sh says how they were made).
std::string dump_of(const std::string& name) {
  std::ifstream in(WARPFORGE_SOURCE_DIR "/tests/calibrate/bench/fixtures/sass/" + name + ".sass");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const benchmark& bench(const std::string& parameter) {
  const benchmark* found = find_benchmark(parameter);
  if (!found)
    throw std::logic_error("no benchmark " + parameter);
  return *found;
}

} // namespace

TEST(calibrate_bench_sass_gate, passes_every_benchmark_on_its_own_dump) {
  for (const auto& b : built_in_benchmarks()) {
    SCOPED_TRACE(b.parameter);
    const std::string dump = dump_of(b.parameter);
    ASSERT_FALSE(dump.empty()) << "no fixture dump";
    const auto gate = check_sass(dump, b);
    EXPECT_TRUE(gate.ok) << gate.reason;
    EXPECT_EQ(gate.reason, "");
  }
}

TEST(calibrate_bench_sass_gate, fails_wgmma_built_for_bare_sm_90_naming_the_opcode_and_sm_90a) {
  const auto gate =
      check_sass(dump_of("tensor_wgmma_f16_throughput.sm_90"), bench("tensor_wgmma_f16_throughput"));
  EXPECT_FALSE(gate.ok);
  EXPECT_NE(gate.reason.find("HGMMA.64x256x16.F32"), std::string::npos) << gate.reason;
  EXPECT_NE(gate.reason.find("sm_90a"), std::string::npos) << gate.reason;
  EXPECT_FALSE(gate.listing.empty());
}

TEST(calibrate_bench_sass_gate, fails_a_benchmark_whose_binary_times_another_instruction) {
  const auto gate = check_sass(dump_of("fp32_fma_latency"), bench("fp64_fma_latency"));
  EXPECT_FALSE(gate.ok);
  EXPECT_EQ(gate.reason, "the SASS of fp64_fma_latency lacks DFMA");
}

TEST(calibrate_bench_sass_gate, tells_l2_loads_from_l1_loads) {
  // The L1 chase's loads are plain LDG.E.64; the L2 chase needs the L1-bypassing STRONG.GPU form.
  EXPECT_FALSE(check_sass(dump_of("l1_hit_latency"), bench("l2_hit_latency")).ok);
  EXPECT_TRUE(check_sass(dump_of("l2_hit_latency"), bench("l1_hit_latency")).ok)
      << "LDG.E.64 is a subset of LDG.E.64.STRONG.GPU's modifiers";
}

TEST(calibrate_bench_sass_gate, fails_the_mma_gate_on_a_dump_without_hmma) {
  const auto gate = check_sass(dump_of("fp16_hfma2_throughput"), bench("tensor_mma_f16_latency"));
  EXPECT_FALSE(gate.ok);
  EXPECT_NE(gate.reason.find("HMMA.16816.F32"), std::string::npos) << gate.reason;
}

TEST(calibrate_bench_sass_gate, lists_the_instructions_under_their_kernel) {
  const auto gate = check_sass(dump_of("fp32_fma_latency"), bench("fp32_fma_latency"));
  ASSERT_TRUE(gate.ok) << gate.reason;
  EXPECT_NE(gate.listing.find("kernel: _Z17wf_latency_kernelI7ffma_opLi128E"), std::string::npos);
  EXPECT_NE(gate.listing.find(" FFMA R"), std::string::npos);
  EXPECT_EQ(gate.listing.find("0x0000"), std::string::npos) << "no encodings in the listing";
}

TEST(calibrate_bench_sass_gate, refuses_text_that_is_not_a_disassembly) {
  const auto gate = check_sass("nvcc fatal: something went wrong\n", bench("fp32_fma_latency"));
  EXPECT_FALSE(gate.ok);
  EXPECT_NE(gate.reason.find("cannot be read"), std::string::npos) << gate.reason;
}

TEST(calibrate_bench_sass_gate, refuses_an_empty_disassembly) {
  const auto gate = check_sass("", bench("fp32_fma_latency"));
  EXPECT_FALSE(gate.ok);
  EXPECT_FALSE(gate.reason.empty());
}

TEST(calibrate_bench_sass_gate, refuses_a_benchmark_that_requires_nothing) {
  benchmark nothing = bench("fp32_fma_latency");
  nothing.required_sass.clear();
  const auto gate = check_sass(dump_of("fp32_fma_latency"), nothing);
  EXPECT_FALSE(gate.ok);
  EXPECT_NE(gate.reason.find("nothing to verify"), std::string::npos) << gate.reason;
}

TEST(calibrate_bench_sass_gate, does_not_count_instructions_that_never_execute) {
  const std::string dump = "\tcode for sm_90\n\t\tFunction : k\n"
                           "        /*0000*/      @!PT DFMA R0, R0, R2, R4 ;\n"
                           "        /*0010*/           EXIT ;\n";
  const auto gate = check_sass(dump, bench("fp64_fma_latency"));
  EXPECT_FALSE(gate.ok) << gate.listing;
  EXPECT_NE(gate.reason.find("DFMA"), std::string::npos) << gate.reason;
}
