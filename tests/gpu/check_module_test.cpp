// The runner's check kernels compile with NVRTC for sm_90 without a GPU: the embedded source
// (the shared generator, the record, the kernels) is one valid translation unit, every kernel the
// runner looks up is in the CUBIN, and -fmad=false keeps FMA contractions out (the generator and
// the tolerance test must round as the host does).
#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runtime/check_module.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

using namespace warpforge::gpu;

TEST(check_module, the_check_kernels_compile_for_sm_90_without_fma_contractions) {
  const auto request = check_kernels_compile_request("sm_90");
  EXPECT_NE(std::find(request.extra_flags.begin(), request.extra_flags.end(), "-fmad=false"),
            request.extra_flags.end());
  auto compiled = compile_kernel(request);
  ASSERT_TRUE(compiled) << to_string(compiled.error().kind) << ": " << compiled.error().log;
  std::cout << "check kernels: NVRTC " << compiled->compile_s << " s, CUBIN " << compiled->cubin.size()
            << " bytes" << (compiled->log.empty() ? "" : ", log: " + compiled->log) << "\n";
  EXPECT_TRUE(compiled->log.empty()) << "no warnings expected: " << compiled->log;

  auto entries = kernel_entries(compiled->cubin);
  ASSERT_TRUE(entries) << entries.error().detail;
  std::vector<std::string> wanted{"warpforge_fill", "warpforge_first_difference"};
  for (auto type : warpforge::config::all_dtypes)
    wanted.push_back("warpforge_compare_" + std::string{warpforge::config::to_string(type)});
  for (const auto& name : wanted)
    EXPECT_NE(std::find(entries->begin(), entries->end(), name), entries->end()) << name;

  EXPECT_EQ(compiled->ptx.find("fma."), std::string::npos) << "an FMA in the check kernels' PTX";
  EXPECT_NE(compiled->ptx.find("sqrt.rn.f64"), std::string::npos) << "normal's radius: IEEE sqrt";
  EXPECT_NE(compiled->ptx.find("div.rn.f64"), std::string::npos);
}

TEST(check_module, the_source_names_each_part_for_nvrtc_messages) {
  const auto source = check_kernels_source();
  for (const auto* part : {"#line 1 \"gpu/check/counter_generator.hpp\"", "#line 1 \"gpu/runtime/check_report.hpp\"",
                           "#line 1 \"gpu/runtime/check_kernels.cu\""})
    EXPECT_NE(source.find(part), std::string::npos) << part;
  EXPECT_EQ(source.find("\n#pragma once"), std::string::npos) << "a main file warns on #pragma once";
}
