#include "sass/method_check.hpp"

#include "sass/method_catalog.hpp"
#include "sass_test_support.hpp"

#include <gtest/gtest.h>

namespace warpforge::sass {
namespace {

using test::load_dump;

/// One method's answer for one kernel (or the whole CUBIN when kernel is empty).
method_check check_one(const disassembly& listing, const std::string& id,
                       const std::string& kernel = "") {
  check_options options;
  if (!kernel.empty())
    options.kernel = kernel;
  const std::vector<std::string> ids{id};
  return check_methods(listing, signature_table::builtin(), ids, options).at(0);
}

opcode_check opcodes_in(const disassembly& listing, const std::string& kernel,
                        std::vector<std::string> opcodes) {
  check_options options;
  options.kernel = kernel;
  return check_opcodes(listing, opcodes, options);
}

/// A listing of one kernel "k" from instruction texts such as "@!PT LDS RZ, [RZ]".
disassembly listing_of(std::initializer_list<std::string_view> code) {
  std::string text = "\t\tFunction : k\n";
  std::uint64_t address = 0;
  for (auto line : code) {
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "        /*%04llx*/ ",
                  static_cast<unsigned long long>(address));
    text += prefix + std::string{line} + " ;\n";
    address += 16;
  }
  auto parsed = parse_sass(text, sass_format::cuobjdump);
  EXPECT_TRUE(parsed) << parsed.error().to_string();
  return parsed ? std::move(*parsed) : disassembly{};
}

TEST(SassMethodCheck, EveryPresenceAndOpcodeOutcomeRoundTripsThroughItsName) {
  for (auto presence : all_method_presences)
    EXPECT_EQ(method_presence_from_string(to_string(presence)), presence);
  for (auto outcome : all_opcode_outcomes)
    EXPECT_EQ(opcode_outcome_from_string(to_string(outcome)), outcome);
  EXPECT_EQ(to_string(method_presence::not_checkable), "not_checkable");
  EXPECT_EQ(method_presence_from_string("verified"), std::nullopt);
  EXPECT_EQ(opcode_outcome_from_string("passed"), std::nullopt);
}

class SassSignaturesCubin : public ::testing::TestWithParam<sass_format> {
protected:
  disassembly listing = load_dump("signatures.sm_90a", GetParam());
};

TEST_P(SassSignaturesCubin, EachKernelShowsTheMethodItWasWrittenFor) {
  const std::pair<const char*, const char*> expected[] = {
      {"vectorized_copy", "vectorized_loads"},
      {"vectorized_copy", "memory.vectorized_access"},
      {"smem_transpose", "smem_staging"},
      {"smem_transpose", "memory.tiling_smem"},
      {"async_copy", "memory.async_copy"},
      {"async_copy", "latency.async_pipeline"},
      {"wmma_gemm_tile", "compute.tensor_core"},
      {"wmma_gemm_tile", "tensor_cores"},
      {"warp_reduce", "compute.warp_shuffle"},
      {"warp_reduce", "compute.reduction"},
      {"special_functions", "compute.mufu_ex2_softmax_replacement"},
      {"special_functions", "special_functions"},
      {"register_spill", "spills"},
  };
  for (const auto& [kernel, id] : expected) {
    const auto check = check_one(listing, id, kernel);
    EXPECT_EQ(check.presence, method_presence::present) << kernel << " " << id << ": "
                                                        << check.reason;
    ASSERT_FALSE(check.matches.empty()) << kernel << " " << id;
    EXPECT_EQ(check.matches.front().kernel, kernel);
  }
}

TEST_P(SassSignaturesCubin, QuotesTheMatchingInstructionWithKernelAndAddress) {
  auto check = check_one(listing, "memory.async_copy", "async_copy");
  ASSERT_EQ(check.matches.size(), 1u);
  EXPECT_EQ(check.matches[0].address, 0x130u);
  EXPECT_EQ(check.matches[0].text, "LDGSTS.E.BYPASS.128 [R7], desc[UR6][R2.64]");
  EXPECT_EQ(check.matches[0].pattern, "^LDGSTS\\b");
  EXPECT_EQ(check.patterns_found, std::vector<std::string>{"^LDGSTS\\b"});
  EXPECT_EQ(check.match_count, 1u);

  check = check_one(listing, "vectorized_loads", "vectorized_copy");
  ASSERT_EQ(check.matches.size(), 1u);
  EXPECT_EQ(check.matches[0].address, 0xc0u);
  EXPECT_EQ(check.matches[0].text, "LDG.E.128.CONSTANT R8, desc[UR4][R4.64]");

  check = check_one(listing, "warp_shuffles", "warp_reduce");
  EXPECT_EQ(check.match_count, 5u); // offsets 16, 8, 4, 2, 1
  EXPECT_EQ(check.matches[0].text.substr(0, 9), "SHFL.DOWN");
}

TEST_P(SassSignaturesCubin, ExpectedOpcodesAreFoundPerKernel) {
  const std::pair<const char*, std::vector<std::string>> expected[] = {
      {"vectorized_copy", {"LDG.E.128", "STG.E.128"}},
      {"smem_transpose", {"STS", "LDS", "BAR.SYNC"}},
      {"async_copy", {"LDGSTS", "LDGDEPBAR", "DEPBAR.LE"}},
      {"wmma_gemm_tile", {"HMMA", "HMMA.16816.F32"}},
      {"warp_reduce", {"SHFL.DOWN", "REDG.E.ADD"}},
      {"special_functions", {"MUFU.EX2", "MUFU.SIN", "mufu.rsq"}},
      {"register_spill", {"STL", "LDL", "STL.128", "LDL.LU"}},
  };
  for (const auto& [kernel, opcodes] : expected) {
    const auto check = opcodes_in(listing, kernel, opcodes);
    EXPECT_EQ(check.outcome, opcode_outcome::all_present) << kernel;
    EXPECT_EQ(check.found, opcodes) << kernel;
    EXPECT_TRUE(check.missing.empty()) << kernel;
  }
}

TEST_P(SassSignaturesCubin, MissingOpcodesAreNamed) {
  const auto check = opcodes_in(listing, "vectorized_copy", {"LDG.128", "STL", "HMMA", "LDG.E.64"});
  EXPECT_EQ(check.outcome, opcode_outcome::missing);
  EXPECT_EQ(check.found, std::vector<std::string>{"LDG.128"}); // modifiers in any order, any subset
  EXPECT_EQ(check.missing, (std::vector<std::string>{"STL", "HMMA", "LDG.E.64"}));
}

TEST_P(SassSignaturesCubin, KernelsWithoutAMethodAreAbsentNamingThePatterns) {
  auto check = check_one(listing, "spills", "vectorized_copy");
  EXPECT_EQ(check.presence, method_presence::absent);
  EXPECT_TRUE(check.matches.empty());
  EXPECT_EQ(check.patterns_missing, std::vector<std::string>{"^(STL|LDL)\\b"});
  EXPECT_NE(check.reason.find("no instruction matches any of ^(STL|LDL)\\b"), std::string::npos);

  EXPECT_EQ(check_one(listing, "compute.tensor_core", "special_functions").presence,
            method_presence::absent);
  EXPECT_EQ(check_one(listing, "memory.async_copy", "smem_transpose").presence,
            method_presence::absent);
}

TEST_P(SassSignaturesCubin, MatchAllNeedsEveryPatternAndNamesTheMissingOnes) {
  // warp_reduce has the shuffles and the atomic (REDG) but no VOTE or POPC.
  const auto check = check_one(listing, "latency.warp_aggregated_atomics", "warp_reduce");
  EXPECT_EQ(check.presence, method_presence::absent);
  EXPECT_EQ(check.patterns_found.size(), 2u);
  EXPECT_EQ(check.patterns_missing, (std::vector<std::string>{"^VOTEU?\\b", "^U?POPC\\b"}));
  EXPECT_NE(check.reason.find("all patterns are required"), std::string::npos);
}

TEST_P(SassSignaturesCubin, QuotesAFewMatchesButCountsThemAll) {
  const auto check = check_one(listing, "spills", "register_spill");
  EXPECT_EQ(check.presence, method_presence::present);
  EXPECT_EQ(check.matches.size(), default_quoted_matches);
  EXPECT_EQ(check.match_count, 134u + 26u + 63u + 134u + 10u); // STL, STL.128, LDL, LDL.LU(.128)
}

TEST_P(SassSignaturesCubin, TheWholeCubinShowsEveryEvidenceName) {
  for (const auto* id : {"vectorized_loads", "smem_staging", "async_copies", "tensor_cores",
                         "warp_shuffles", "special_functions", "spills"})
    EXPECT_EQ(check_one(listing, id).presence, method_presence::present) << id;
  EXPECT_EQ(check_one(listing, "tma").presence, method_presence::absent); // sm_90a, but no TMA
}

INSTANTIATE_TEST_SUITE_P(BothFormats, SassSignaturesCubin, ::testing::ValuesIn(all_sass_formats),
                         [](const auto& param) { return std::string{to_string(param.param)}; });

TEST(SassMethodCheck, BothFormatsGiveTheSameAnswerForEverySignatureAndKernel) {
  std::vector<std::string> ids;
  for (const auto& signature : signature_table::builtin().signatures())
    ids.push_back(signature.id);
  for (auto stem : test::fixture_stems) {
    const auto nvdisasm = load_dump(stem, sass_format::nvdisasm);
    const auto cuobjdump = load_dump(stem, sass_format::cuobjdump);
    for (const auto& kernel : nvdisasm.kernel_names()) {
      check_options options;
      options.kernel = kernel;
      const auto a = check_methods(nvdisasm, signature_table::builtin(), ids, options);
      const auto b = check_methods(cuobjdump, signature_table::builtin(), ids, options);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].presence, b[i].presence) << stem << " " << kernel << " " << ids[i];
        EXPECT_EQ(a[i].match_count, b[i].match_count) << stem << " " << kernel << " " << ids[i];
      }
    }
  }
}

TEST(SassMethodCheck, TheTiledTransposeStagesThroughSharedMemoryAndTheNaiveOneDoesNot) {
  for (auto format : all_sass_formats) {
    SCOPED_TRACE(to_string(format));
    const auto tiled = load_dump("transpose_tiled.sm_90", format);
    const auto naive = load_dump("transpose_naive.sm_90", format);
    for (const auto* id : {"memory.tiling_smem", "smem_staging"}) {
      EXPECT_EQ(check_one(tiled, id, "transpose").presence, method_presence::present) << id;
      EXPECT_EQ(check_one(naive, id, "transpose").presence, method_presence::absent) << id;
    }
    EXPECT_EQ(opcodes_in(tiled, "transpose", {"STS", "LDS"}).outcome, opcode_outcome::all_present);
    EXPECT_EQ(opcodes_in(naive, "transpose", {"STS", "LDS"}).missing,
              (std::vector<std::string>{"STS", "LDS"}));
  }
}

TEST(SassMethodCheck, TheShuffleReductionShufflesAndTheSharedMemoryOneDoesNot) {
  for (auto format : all_sass_formats) {
    SCOPED_TRACE(to_string(format));
    const auto shuffle = load_dump("row_reduction_shuffle.sm_90", format);
    const auto smem = load_dump("row_reduction_smem.sm_90", format);
    for (const auto* id : {"compute.warp_shuffle", "latency.warp_shuffle_sync", "warp_shuffles"}) {
      EXPECT_EQ(check_one(shuffle, id, "row_sum").presence, method_presence::present) << id;
      EXPECT_EQ(check_one(smem, id, "row_sum").presence, method_presence::absent) << id;
    }
    EXPECT_EQ(opcodes_in(shuffle, "row_sum", {"SHFL.DOWN"}).outcome, opcode_outcome::all_present);
    EXPECT_EQ(opcodes_in(smem, "row_sum", {"SHFL"}).outcome, opcode_outcome::missing);
  }
}

TEST(SassMethodCheck, TheVectorAddReadsThroughTheReadOnlyPathWithoutVectorising) {
  const auto listing = load_dump("vector_add.sm_90", sass_format::nvdisasm);
  EXPECT_EQ(check_one(listing, "memory.cache_and_readonly").presence, method_presence::present);
  EXPECT_EQ(check_one(listing, "memory.vectorized_access").presence, method_presence::absent);
}

TEST(SassMethodCheck, MethodsSassCannotShowAreNotCheckableEvenWithoutADisassembly) {
  const std::vector<std::string> ids{"latency.cuda_graphs", "memory.coalesced_access"};
  const auto listing = load_dump("vector_add.sm_90", sass_format::nvdisasm);
  for (const auto& check : check_methods(listing, signature_table::builtin(), ids)) {
    EXPECT_EQ(check.presence, method_presence::not_checkable) << check.id;
    EXPECT_EQ(check.reason.substr(0, 22), "unverifiable by SASS: ") << check.reason;
  }
  const expected<disassembly, disassemble_failure> none =
      unexpected(disassemble_failure{disassemble_failure_kind::unavailable, "no tool"});
  for (const auto& check : check_methods(none, signature_table::builtin(), ids))
    EXPECT_EQ(check.presence, method_presence::not_checkable) << check.id;
}

TEST(SassMethodCheck, WithoutADisassemblerEveryCheckableMethodIsUnavailableNeverPresent) {
  const test::temp_dir empty;
  const auto listing = [&]() -> expected<disassembly, disassemble_failure> {
    auto tool = find_disassembler(tool_search{empty.path().string(), {empty.path()}});
    if (!tool)
      return unexpected(std::move(tool).error());
    return disassemble(*tool, test::fixture_dir() / "vector_add.sm_90.cubin");
  }();
  ASSERT_FALSE(listing);
  std::vector<std::string> ids;
  for (const auto& method : method_catalog::builtin().methods())
    ids.push_back(method.id);
  ids.push_back("spills");
  std::size_t unavailable = 0;
  for (const auto& check : check_methods(listing, signature_table::builtin(), ids)) {
    EXPECT_TRUE(check.presence == method_presence::unavailable ||
                check.presence == method_presence::not_checkable)
        << check.id << " " << to_string(check.presence);
    if (check.presence == method_presence::unavailable) {
      ++unavailable;
      EXPECT_NE(check.reason.find("no nvdisasm or cuobjdump on this host"), std::string::npos);
    }
  }
  EXPECT_EQ(unavailable, 63u - 27u + 1u); // 27 runtime methods; "spills"

  const std::vector<std::string> opcodes{"LDG"};
  const auto opcodes_check = check_opcodes(listing, opcodes);
  EXPECT_EQ(opcodes_check.outcome, opcode_outcome::unavailable);
  EXPECT_NE(opcodes_check.reason.find("unavailable: no nvdisasm or cuobjdump"), std::string::npos);
}

TEST(SassMethodCheck, AKernelNotInTheCubinIsUnavailableListingTheKernels) {
  const auto listing = load_dump("vector_add.sm_90", sass_format::nvdisasm);
  const auto check = check_one(listing, "spills", "vector_ad");
  EXPECT_EQ(check.presence, method_presence::unavailable);
  EXPECT_EQ(check.reason, "kernel 'vector_ad' is not in the disassembly (kernels: vector_add)");
  EXPECT_EQ(opcodes_in(listing, "vector_ad", {"LDG"}).outcome, opcode_outcome::unavailable);
  EXPECT_EQ(check_one(disassembly{}, "spills").presence, method_presence::unavailable);
}

TEST(SassMethodCheck, AKernelNameCoversItsCodeForEveryArchitectureOfAFatBinary) {
  auto listing = parse_sass("\tcode for sm_80\n\t\tFunction : k\n        /*0000*/  LDS R0, [R1] ;\n"
                            "\tcode for sm_90\n\t\tFunction : k\n        /*0000*/  STS [R1], R0 ;\n",
                            sass_format::cuobjdump);
  ASSERT_TRUE(listing) << listing.error().to_string();
  ASSERT_EQ(listing->kernels.size(), 2u);
  EXPECT_EQ(listing->kernels[1].arch, "sm_90");
  const auto check = check_one(*listing, "smem_staging", "k"); // LDS in one, STS in the other
  EXPECT_EQ(check.presence, method_presence::present);
  EXPECT_EQ(check.match_count, 2u);
}

TEST(SassMethodCheck, AnIdOutsideTheTableIsAnUnknownMethod) {
  const auto listing = load_dump("vector_add.sm_90", sass_format::nvdisasm);
  const auto check = check_one(listing, "memory.teleportation");
  EXPECT_EQ(check.presence, method_presence::unknown_method);
  EXPECT_NE(check.reason.find("no signature 'memory.teleportation'"), std::string::npos);
}

TEST(SassMethodCheck, InstructionsThatNeverExecuteAreNoEvidence) {
  const auto listing = listing_of({"@!PT LDS RZ, [RZ]", "@!PT STS [RZ], RZ", "EXIT"});
  EXPECT_EQ(check_one(listing, "smem_staging").presence, method_presence::absent);
  check_options options;
  options.count_never_executed = true;
  const std::vector<std::string> ids{"smem_staging"};
  const auto counted = check_methods(listing, signature_table::builtin(), ids, options).at(0);
  EXPECT_EQ(counted.presence, method_presence::present);
  EXPECT_EQ(counted.match_count, 2u);
  EXPECT_EQ(opcodes_in(listing, "k", {"LDS"}).outcome, opcode_outcome::missing);
}

TEST(SassMethodCheck, AForbiddenInstructionMakesAMethodAbsent) {
  // ex2 replacement: MUFU.EX2 without the accurate expf's FFMA.RM rounding step.
  const auto clean = listing_of({"FMUL R0, R2, 1.4426950216293334961", "MUFU.EX2 R6, R0", "EXIT"});
  EXPECT_EQ(check_one(clean, "compute.mufu_ex2_softmax_replacement").presence,
            method_presence::present);
  const auto accurate = listing_of({"FFMA.SAT R3, R2, R5, 0.5", "FFMA.RM R3, R3, R7, 12582913",
                                    "MUFU.EX2 R6, R0", "EXIT"});
  const auto check = check_one(accurate, "compute.mufu_ex2_softmax_replacement");
  EXPECT_EQ(check.presence, method_presence::absent);
  EXPECT_EQ(check.forbidden_found, std::vector<std::string>{"^FFMA\\.RM\\b"});
  EXPECT_NE(check.reason.find("forbidden instructions present"), std::string::npos);
}

TEST(SassMethodCheck, PredicatedInstructionsStillCount) {
  const auto listing = listing_of({"@P0 SHFL.DOWN PT, R3, R2, 0x1, 0x1f", "EXIT"});
  EXPECT_EQ(check_one(listing, "warp_shuffles").presence, method_presence::present);
  EXPECT_EQ(check_one(listing, "warp_shuffles").matches.at(0).text,
            "@P0 SHFL.DOWN PT, R3, R2, 0x1, 0x1f");
}

} // namespace
} // namespace warpforge::sass
