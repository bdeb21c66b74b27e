// The SASS half of the cheat checks on real dumps (tests/fixtures/sass/) and on listings written
// the way nvdisasm prints them: clock reads and device launches refused, f16 tensor-core math on
// an f32 problem reported, honest kernels (and ptxas's HFMA2.MMA constant loads) left alone.

#include "sass/code_hazards.hpp"
#include "sass/parser.hpp"

#include "sass_test_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace warpforge::sass;
using warpforge::gpu::ptx_finding_kind;
using warpforge::gpu::ptx_float_type;

namespace {

disassembly listing_of(const std::string& body) {
  const std::string text = "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
                           "\t.elftype\t@\"ET_EXEC\"\n"
                           "//--------------------- .text.k          --------------------------\n"
                           "\t.section\t.text.k,\"ax\",@progbits\n"
                           "        .global         k\n"
                           "k:\n"
                           ".text.k:\n" +
                           body;
  auto parsed = parse_sass(text, sass_format::nvdisasm);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().to_string());
  return parsed ? *parsed : disassembly{};
}

} // namespace

TEST(code_hazards, reading_the_sm_clock_and_the_global_timer_is_refused) {
  const auto listing = listing_of("        /*0000*/                   CS2R R2, SR_CLOCKLO ;\n"
                                  "        /*0010*/                   S2UR UR4, SR_GLOBALTIMERLO ;\n"
                                  "        /*0020*/                   EXIT ;\n");
  const auto scan = scan_code_hazards(listing, ptx_float_type::f32);
  ASSERT_EQ(scan.refused.size(), 2u);
  EXPECT_EQ(scan.refused[0].kind, ptx_finding_kind::timer_read);
  EXPECT_EQ(scan.refused[0].what, "SR_CLOCKLO");
  EXPECT_EQ(scan.refused[1].what, "SR_GLOBALTIMERLO");
  EXPECT_EQ(scan.refused[1].address, 0x10u);
  EXPECT_NE(describe(scan.refused[0]).find("k +0x0000: CS2R R2, SR_CLOCKLO"), std::string::npos)
      << describe(scan.refused[0]);
}

TEST(code_hazards, a_call_into_the_cdp_runtime_is_a_device_launch) {
  const auto listing = listing_of("        /*0000*/                   CALL.ABS.NOINC `(__cudaCDP2LaunchDeviceV2) ;\n"
                                  "        /*0010*/                   EXIT ;\n");
  const auto scan = scan_code_hazards(listing, ptx_float_type::f32);
  ASSERT_EQ(scan.refused.size(), 1u);
  EXPECT_EQ(scan.refused[0].kind, ptx_finding_kind::device_launch);
}

TEST(code_hazards, wmma_in_f16_on_an_f32_problem_is_narrowing_in_the_real_dump) {
  const auto listing = test::load_dump("signatures.sm_90a", sass_format::nvdisasm);
  const auto scan = scan_code_hazards(listing, ptx_float_type::f32);
  EXPECT_TRUE(scan.refused.empty()) << describe(scan.refused.front());
  ASSERT_FALSE(scan.narrowing.empty());
  const auto hmma = std::find_if(scan.narrowing.begin(), scan.narrowing.end(),
                                 [](const code_finding& f) { return f.text.starts_with("HMMA"); });
  ASSERT_NE(hmma, scan.narrowing.end());
  EXPECT_EQ(hmma->kernel, "wmma_gemm_tile");
  EXPECT_EQ(hmma->what, "f16");
  EXPECT_TRUE(scan_code_hazards(listing, ptx_float_type::f16).narrowing.empty());
}

TEST(code_hazards, honest_f32_kernels_and_hfma2_constant_loads_are_not_narrowing) {
  for (const auto* stem : {"vector_add.sm_90", "transpose_tiled.sm_90", "row_reduction_shuffle.sm_90",
                           "row_reduction_smem.sm_90", "transpose_naive.sm_90"}) {
    const auto scan = scan_code_hazards(test::load_dump(stem, sass_format::nvdisasm), ptx_float_type::f32);
    EXPECT_TRUE(scan.refused.empty()) << stem << ": " << describe(scan.refused.front());
    EXPECT_TRUE(scan.narrowing.empty()) << stem << ": " << describe(scan.narrowing.front());
  }
  const auto paired = listing_of("        /*0000*/                   HFMA2 R4, R2, R3, R4 ;\n"
                                 "        /*0010*/                   F2FP.F16.F32.PACK_AB R5, R6, R7 ;\n");
  EXPECT_EQ(scan_code_hazards(paired, ptx_float_type::f32).narrowing_count, 2u);
}

TEST(code_hazards, an_f64_problem_computing_in_f32_is_narrowing) {
  const auto listing = listing_of("        /*0000*/                   F2F.F32.F64 R2, R4 ;\n"
                                  "        /*0010*/                   FFMA R2, R2, R2, R3 ;\n"
                                  "        /*0020*/                   DFMA R4, R4, R4, R6 ;\n");
  EXPECT_EQ(scan_code_hazards(listing, ptx_float_type::f64).narrowing_count, 2u);
  EXPECT_EQ(scan_code_hazards(listing, ptx_float_type::f32).narrowing_count, 0u);
  EXPECT_EQ(scan_code_hazards(listing, ptx_float_type::none).narrowing_count, 0u);
}

TEST(code_hazards, each_kernel_of_the_captured_hazards_dump_shows_what_it_does_and_nothing_else) {
  // tests/fixtures/sass/hazards.cu, nvcc -cubin -rdc=true -arch=sm_90 and nvdisasm on an H100 host.
  for (auto format : {sass_format::nvdisasm, sass_format::cuobjdump}) {
    const auto scan = scan_code_hazards(test::load_dump("hazards.sm_90", format), ptx_float_type::f32);
    std::map<std::string, std::set<std::string>> refused, narrowing; // kernel -> what
    for (const auto& f : scan.refused)
      refused[f.kernel].insert(std::string{warpforge::gpu::to_string(f.kind)} + " " + f.what);
    for (const auto& f : scan.narrowing)
      narrowing[f.kernel].insert(f.what);
    std::map<std::string, std::set<std::string>> expected_refused{
        {"reads_clock64", {"timer_read SR_CLOCKLO"}},
        {"reads_clock", {"timer_read SR_CLOCKLO"}},
        {"reads_globaltimer", {"timer_read SR_GLOBALTIMERLO"}},
        {"reads_globaltimer_lo", {"timer_read SR_GLOBALTIMERLO"}}};
    // nvdisasm names the CDP runtime's entry; cuobjdump prints the call as CALL.ABS.NOINC 0x0,
    // nameless (the PTX check is what sees the launch there).
    if (format == sass_format::nvdisasm)
      expected_refused["launches"] = {"device_launch __cudaCDP"};
    EXPECT_EQ(refused, expected_refused) << to_string(format);
    const std::map<std::string, std::set<std::string>> expected_narrowing{{"half_math", {"f16"}},
                                                                          {"half2_math", {"f16"}}};
    EXPECT_EQ(narrowing, expected_narrowing) << to_string(format); // sleeps and child: nothing
  }
}
