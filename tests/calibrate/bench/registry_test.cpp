#include "calibrate/bench/registry.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

using namespace warpforge::calibrate;

namespace {

// The priority 1-3 parameters fixed for issue 12 and the priority 4 ones of issue 27 (the
// catalog's names): every parameter of the built-in catalog.
const std::vector<std::string> every_parameter = {
    "fp32_fma_latency", "fp32_fma_throughput", "fp64_fma_latency", "fp64_fma_throughput",
    "fp16_hfma2_latency", "fp16_hfma2_throughput", "int32_iadd_latency", "int32_imad_latency",
    "int32_imad_throughput", "sfu_rsqrt_latency", "sfu_rsqrt_throughput",
    "tensor_mma_f16_latency", "tensor_mma_f16_throughput", "tensor_wgmma_f16_throughput",
    "smem_latency", "smem_bandwidth", "smem_banks", "smem_bank_conflict_penalty",
    "warp_schedulers_per_sm", "branch_divergence_penalty", "shfl_latency", "l1_hit_latency",
    "l2_hit_latency", "dram_latency", "l1_size", "l2_size", "l1_line_size", "dram_bandwidth",
    "l2_bandwidth", "registers_per_sm", "l2_partition_size", "sm_clock_mhz", "sm_count",
    "max_warps_per_sm", "max_registers_per_thread", "warp_size"};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

TEST(calibrate_bench_registry, has_one_benchmark_for_every_parameter_of_every_priority) {
  const auto& all = built_in_benchmarks();
  EXPECT_EQ(all.size(), every_parameter.size());
  std::set<std::string> seen;
  for (const auto& name : every_parameter) {
    const benchmark* bench = find_benchmark(name);
    ASSERT_NE(bench, nullptr) << name;
    EXPECT_EQ(bench->parameter, name);
    EXPECT_EQ(bench->file, "kernels/" + name + ".cu");
    EXPECT_TRUE(seen.insert(bench->parameter).second) << "twice: " << name;
  }
}

TEST(calibrate_bench_registry, answers_nullptr_for_a_parameter_it_has_no_benchmark_for) {
  EXPECT_EQ(find_benchmark("sm_counts"), nullptr);
  EXPECT_EQ(find_benchmark(""), nullptr);
}

TEST(calibrate_bench_registry, every_source_is_one_self_contained_program) {
  for (const auto& bench : built_in_benchmarks()) {
    SCOPED_TRACE(bench.parameter);
    EXPECT_NE(bench.source.find("int main()"), std::string_view::npos);
    EXPECT_EQ(bench.source.find(".cuh\""), std::string_view::npos) << "an include left over";
    EXPECT_EQ(bench.source.find("#pragma once"), std::string_view::npos);
    EXPECT_NE(bench.source.find("static void wf_print_result"), std::string_view::npos);
    EXPECT_NE(bench.source.find("wf_print_result("), bench.source.rfind("wf_print_result("))
        << "the program never prints its RESULT";
  }
}

TEST(calibrate_bench_registry, sources_are_the_files_in_the_tree_with_their_headers_pasted) {
  for (const auto& bench : built_in_benchmarks()) {
    SCOPED_TRACE(bench.file);
    const std::string on_disk = read_file(WARPFORGE_SOURCE_DIR "/calibrate/bench/" + bench.file);
    ASSERT_FALSE(on_disk.empty());
    auto pasted = inline_headers(on_disk);
    ASSERT_TRUE(pasted) << pasted.error();
    EXPECT_EQ(*pasted, bench.source);
  }
}

TEST(calibrate_bench_registry, only_wgmma_needs_the_arch_specific_target) {
  for (const auto& bench : built_in_benchmarks()) {
    const bool wgmma = bench.parameter == "tensor_wgmma_f16_throughput";
    EXPECT_EQ(bench.arch, wgmma ? "sm_90a" : "sm_90") << bench.parameter;
  }
}

TEST(calibrate_bench_registry, every_benchmark_names_the_sass_it_times_and_a_counter) {
  for (const auto& bench : built_in_benchmarks()) {
    EXPECT_FALSE(bench.required_sass.empty()) << bench.parameter;
    EXPECT_FALSE(bench.counters.empty()) << bench.parameter;
    for (const auto& counter : bench.counters)
      EXPECT_NE(counter.find("__"), std::string::npos) << bench.parameter << ": " << counter;
  }
  const auto& wgmma = find_benchmark("tensor_wgmma_f16_throughput")->required_sass;
  EXPECT_NE(std::find(wgmma.begin(), wgmma.end(), "HGMMA.64x256x16.F32"), wgmma.end());
}

TEST(calibrate_bench_registry, inline_headers_pastes_each_header_once_without_pragma_once) {
  auto pasted = inline_headers("#include \"chain.cuh\"\n#include \"common.cuh\"\nint main() {}\n");
  ASSERT_TRUE(pasted) << pasted.error();
  // chain.cuh includes common.cuh: one copy, from chain's include, and none for the second.
  const auto first = pasted->find("#define WF_CHECK");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(pasted->find("#define WF_CHECK", first + 1), std::string::npos);
  EXPECT_LT(first, pasted->find("wf_latency_kernel"));
  EXPECT_EQ(pasted->find("#pragma once"), std::string::npos);
  EXPECT_NE(pasted->find("int main() {}"), std::string::npos);
}

TEST(calibrate_bench_registry, inline_headers_leaves_system_includes_alone) {
  auto pasted = inline_headers("#include <cstdio>\nint x;\n");
  ASSERT_TRUE(pasted) << pasted.error();
  EXPECT_EQ(*pasted, "#include <cstdio>\nint x;\n");
}

TEST(calibrate_bench_registry, inline_headers_names_the_line_of_an_unknown_header) {
  auto pasted = inline_headers("int a;\n  #include \"helpers.cuh\"\n");
  ASSERT_FALSE(pasted);
  EXPECT_NE(pasted.error().find("source:2"), std::string::npos) << pasted.error();
  EXPECT_NE(pasted.error().find("helpers.cuh"), std::string::npos) << pasted.error();
}

TEST(calibrate_bench_registry, lists_the_shared_headers) {
  std::set<std::string> names;
  for (const auto& [name, text] : benchmark_headers()) {
    names.insert(name);
    EXPECT_FALSE(text.empty()) << name;
  }
  for (const char* expected : {"common.cuh", "chain.cuh", "ops.cuh", "chase.cuh", "stream.cuh"})
    EXPECT_TRUE(names.count(expected)) << expected;
}
