// The signatures that fired on ordinary code (issue 11: `diagnose` saw memory.epilogue_fusion in a
// naive transpose because of a plain STG, CUTLASS epilogue-visitor-tree fusion and online
// recomputation in a row softmax because of FFMA.SAT and MUFU.EX2), held to the real dumps both
// ways: absent from the plain kernels, present where the method really is
// (tests/sass/fixtures/methods.cu; README there says how every dump was made).

#include "sass/method_catalog.hpp"
#include "sass/method_check.hpp"
#include "sass/structure.hpp"
#include "sass_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>

namespace warpforge::sass {
namespace {

disassembly new_dump(std::string_view stem) {
  const auto path = std::filesystem::path{WARPFORGE_SOURCE_DIR} / "tests" / "sass" / "fixtures" /
                    (std::string{stem} + ".nvdisasm.sass");
  auto parsed = parse_sass(test::read_file(path), sass_format::nvdisasm);
  if (!parsed) {
    ADD_FAILURE() << path << ": " << parsed.error().to_string();
    return {};
  }
  return std::move(*parsed);
}

method_check check(const disassembly& listing, const std::string& id, const std::string& kernel) {
  check_options options;
  options.kernel = kernel;
  const std::vector<std::string> ids{id};
  return check_methods(listing, signature_table::builtin(), ids, options).at(0);
}

/// The catalog methods present in one kernel.
std::set<std::string> present_in(const disassembly& listing, const std::string& kernel) {
  std::vector<std::string> ids;
  for (const auto& method : method_catalog::builtin().methods())
    ids.push_back(method.id);
  check_options options;
  options.kernel = kernel;
  std::set<std::string> present;
  for (const auto& c : check_methods(listing, signature_table::builtin(), ids, options))
    if (c.presence == method_presence::present)
      present.insert(c.id);
  return present;
}

TEST(SassSignatureSpecificity, TheNaiveTransposeShowsNoEpilogueFusionForItsPlainStore) {
  for (auto format : all_sass_formats) {
    const auto listing = test::load_dump("transpose_naive.sm_90", format);
    const auto c = check(listing, "memory.epilogue_fusion", "transpose");
    EXPECT_EQ(c.presence, method_presence::absent) << to_string(format);
    EXPECT_NE(c.reason.find("no main loop"), std::string::npos) << c.reason;
    // A copy with nothing computed: the one method present is the read-only path it does use.
    EXPECT_EQ(present_in(listing, "transpose"), std::set<std::string>{"memory.cache_and_readonly"});
  }
}

TEST(SassSignatureSpecificity, TheRowSoftmaxShowsNoVisitorTreeNoOnlineRecomputationNoEx2Trick) {
  const auto listing = new_dump("softmax.sm_90");
  // What fired before: FFMA.SAT and MUFU.EX2 are really there (the accurate expf).
  std::vector<std::string> opcodes{"FFMA.SAT", "MUFU.EX2", "FMNMX", "STS", "LDS"};
  EXPECT_EQ(check_opcodes(listing, opcodes).outcome, opcode_outcome::all_present);
  for (const auto* id :
       {"memory.epilogue_visitor_tree_fusion", "latency.online_recomputation",
        "compute.mufu_ex2_softmax_replacement", "memory.epilogue_fusion",
        "compute.ilp_unroll_register_tile", "memory.tiling_smem", "compute.tensor_core"}) {
    const auto c = check(listing, id, "softmax");
    EXPECT_EQ(c.presence, method_presence::absent) << id << ": " << c.reason;
  }
  EXPECT_NE(check(listing, "latency.online_recomputation", "softmax").reason.find("no loop body"),
            std::string::npos);
}

TEST(SassSignatureSpecificity, TheNaiveSgemmStoresItsAccumulatorAsItIs) {
  const auto listing = new_dump("sgemm_naive.sm_90");
  for (const auto* id : {"memory.epilogue_fusion", "compute.ilp_unroll_register_tile",
                         "memory.tiling_smem", "memory.split_k_parallel_reduce"})
    EXPECT_EQ(check(listing, id, "sgemm").presence, method_presence::absent) << id;
  EXPECT_EQ(present_in(listing, "sgemm"), std::set<std::string>{"memory.cache_and_readonly"});
}

TEST(SassSignatureSpecificity, ASharedMemoryReductionIsNotTiling) {
  for (auto format : all_sass_formats) {
    const auto smem = test::load_dump("row_reduction_smem.sm_90", format);
    const auto c = check(smem, "memory.tiling_smem", "row_sum");
    EXPECT_EQ(c.presence, method_presence::absent) << to_string(format);
    EXPECT_NE(c.reason.find("partial results"), std::string::npos) << c.reason;
  }
}

TEST(SassSignatureSpecificity, AnAtomicAddOfAPartialSumIsNotSplitK) {
  const auto listing = test::load_dump("signatures.sm_90a", sass_format::nvdisasm);
  EXPECT_EQ(check(listing, "memory.split_k_parallel_reduce", "warp_reduce").presence,
            method_presence::absent); // REDG.E.ADD.F32 of a shuffled sum, no multiply-add loop
  EXPECT_EQ(check(listing, "latency.atomic_optimize", "warp_reduce").presence,
            method_presence::not_checkable);
}

TEST(SassSignatureSpecificity, EpilogueArithmeticAfterTheMainLoopIsEpilogueFusion) {
  const auto listing = new_dump("methods.sm_90");
  const auto c = check(listing, "memory.epilogue_fusion", "sgemm_epilogue");
  ASSERT_EQ(c.presence, method_presence::present) << c.reason;
  ASSERT_GE(c.matches.size(), 3u);
  EXPECT_EQ(c.matches[0].text, "STG.E [R2.64], R5"); // the store, then the arithmetic before it
  std::set<std::string> opcodes;
  for (const auto& m : c.matches)
    opcodes.insert(m.text.substr(0, m.text.find(' ')));
  EXPECT_TRUE(opcodes.contains("FMNMX") && opcodes.contains("FADD") && opcodes.contains("FFMA"));
  // The register-tiled SGEMM stores its accumulators as they are.
  EXPECT_EQ(check(listing, "memory.epilogue_fusion", "sgemm_register_tile").presence,
            method_presence::absent);
}

TEST(SassSignatureSpecificity, SixteenAccumulatorChainsAreARegisterTileAndOneChainIsNot) {
  const auto listing = new_dump("methods.sm_90");
  const auto tile = check(listing, "compute.ilp_unroll_register_tile", "sgemm_register_tile");
  EXPECT_EQ(tile.presence, method_presence::present) << tile.reason;
  EXPECT_EQ(tile.match_count, 16u); // acc[4][4]
  EXPECT_EQ(check(listing, "memory.tiling_smem", "sgemm_register_tile").presence,
            method_presence::present);
  // The epilogue kernel's k loop, unrolled by ptxas, is still one dependent chain.
  const auto chain = check(listing, "compute.ilp_unroll_register_tile", "sgemm_epilogue");
  EXPECT_EQ(chain.presence, method_presence::absent);
  EXPECT_NE(chain.reason.find("at most 1 independent"), std::string::npos) << chain.reason;
}

TEST(SassSignatureSpecificity, TheOnlineSoftmaxRescaleIsOnlineRecomputation) {
  const auto listing = new_dump("methods.sm_90");
  const auto c = check(listing, "latency.online_recomputation", "online_softmax");
  ASSERT_EQ(c.presence, method_presence::present) << c.reason;
  ASSERT_EQ(c.matches.size(), 3u); // the max, the exponential, the multiply: one loop body
  EXPECT_EQ(c.matches[0].text.substr(0, 5), "FMNMX");
  EXPECT_EQ(c.matches[1].text.substr(0, 8), "MUFU.EX2");
  EXPECT_EQ(check(listing, "memory.epilogue_visitor_tree_fusion", "online_softmax").presence,
            method_presence::absent);
}

TEST(SassSignatureSpecificity, TheVisitorTreeIsReadFromACutlassSymbolOnly) {
  const auto listing = new_dump("methods.sm_90");
  std::string stand_in;
  for (const auto& name : listing.kernel_names())
    if (name.find("Sm90TreeVisitor") != std::string::npos)
      stand_in = name;
  ASSERT_FALSE(stand_in.empty());
  const auto c = check(listing, "memory.epilogue_visitor_tree_fusion", stand_in);
  EXPECT_EQ(c.presence, method_presence::present) << c.reason;
  ASSERT_EQ(c.matches.size(), 1u);
  EXPECT_EQ(c.matches[0].text, "symbol " + stand_in);
  const auto plain = check(listing, "memory.epilogue_visitor_tree_fusion", "sgemm_epilogue");
  EXPECT_EQ(plain.presence, method_presence::absent);
  EXPECT_NE(plain.reason.find("no kernel's symbol matches"), std::string::npos);
}

TEST(SassSignatureSpecificity, LoopsAreTheBackwardBranchesInBothLayouts) {
  for (auto format : all_sass_formats) {
    const auto listing = test::load_dump("row_reduction_smem.sm_90", format);
    const auto* kernel = listing.find_kernel("row_sum");
    ASSERT_NE(kernel, nullptr);
    const auto loops = find_loops(*kernel);
    ASSERT_EQ(loops.size(), 2u) << to_string(format); // the row walk (two copies); not `BRA self`
    EXPECT_EQ(kernel->instructions[loops[0].first].address, 0x1c0u);
    EXPECT_EQ(kernel->instructions[loops[0].last].address, 0x250u);
  }
}

TEST(SassSignatureSpecificity, RegistersReadAndWrittenFollowTheOperands) {
  const auto listing = new_dump("methods.sm_90");
  const auto* kernel = listing.find_kernel("sgemm_epilogue");
  ASSERT_NE(kernel, nullptr);
  const sass_instruction* ffma = nullptr;
  for (const auto& i : kernel->instructions)
    if (i.text == "FFMA R0, R27, UR4, R0")
      ffma = &i;
  ASSERT_NE(ffma, nullptr);
  EXPECT_EQ(written_registers(*ffma), std::vector<int>{0});
  EXPECT_EQ(read_registers(*ffma), (std::vector<int>{27, 0})); // UR4 is a uniform register
  EXPECT_FALSE(is_multiply_add(*ffma));                         // alpha is not a loaded factor
}

// --- Issue 26: signatures that matched on one common opcode --------------------------------------

/// A cuobjdump-style listing of kernel "k", one instruction per 16 bytes from address 0.
disassembly synthetic(std::initializer_list<std::string_view> code) {
  std::string text = "\t\tFunction : k\n";
  std::uint64_t address = 0;
  for (auto line : code) {
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "        /*%04llx*/ ", static_cast<unsigned long long>(address));
    text += prefix + std::string{line} + " ;\n";
    address += 16;
  }
  auto parsed = parse_sass(text, sass_format::cuobjdump);
  EXPECT_TRUE(parsed) << parsed.error().to_string();
  return parsed ? std::move(*parsed) : disassembly{};
}

TEST(SassSignatureSpecificity, FourAccumulatorChainsEachFedByItsOwnLoadsAreNoRegisterTile) {
  // A naive dot product unrolled by two with four split accumulators (R4, R7, R16, R19): four
  // independent chains, but every multiply-add loads its own two words (0.5 per word).
  const auto listing = synthetic({
      "LDG.E R2, [R10.64]",        "LDG.E R3, [R12.64]",        "FFMA R4, R2, R3, R4",
      "LDG.E R5, [R10.64+0x4]",    "LDG.E R6, [R12.64+0x4]",    "FFMA R7, R5, R6, R7",
      "LDG.E R14, [R10.64+0x8]",   "LDG.E R15, [R12.64+0x8]",   "FFMA R16, R14, R15, R16",
      "LDG.E R17, [R10.64+0xc]",   "LDG.E R18, [R12.64+0xc]",   "FFMA R19, R17, R18, R19",
      "LDG.E R20, [R10.64+0x10]",  "LDG.E R21, [R12.64+0x10]",  "FFMA R4, R20, R21, R4",
      "LDG.E R22, [R10.64+0x14]",  "LDG.E R23, [R12.64+0x14]",  "FFMA R7, R22, R23, R7",
      "LDG.E R24, [R10.64+0x18]",  "LDG.E R25, [R12.64+0x18]",  "FFMA R16, R24, R25, R16",
      "LDG.E R26, [R10.64+0x1c]",  "LDG.E R27, [R12.64+0x1c]",  "FFMA R19, R26, R27, R19",
      "ISETP.NE.AND P0, PT, R8, RZ, PT", "@P0 BRA 0x0", "EXIT"});
  const auto c = check(listing, "compute.ilp_unroll_register_tile", "k");
  EXPECT_EQ(c.presence, method_presence::absent) << c.reason;
  EXPECT_NE(c.reason.find("4 independent chains"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("8 multiply-adds per 16 loaded 32-bit words (0.50)"), std::string::npos) << c.reason;

  // The same chains fed from registers a 128-bit shared load filled: a 2 x 2 outer product per
  // loaded pair, reused (8 multiply-adds per 4 words: 2.0).
  const auto tile = synthetic({
      "LDS.64 R2, [R10]",          "LDS.64 R12, [R11]",
      "FFMA R4, R2, R12, R4",      "FFMA R7, R2, R13, R7",
      "FFMA R16, R3, R12, R16",    "FFMA R19, R3, R13, R19",
      "FFMA R4, R2, R12, R4",      "FFMA R7, R2, R13, R7",
      "FFMA R16, R3, R12, R16",    "FFMA R19, R3, R13, R19",
      "ISETP.NE.AND P0, PT, R8, RZ, PT", "@P0 BRA 0x0", "EXIT"});
  const auto t = check(tile, "compute.ilp_unroll_register_tile", "k");
  EXPECT_EQ(t.presence, method_presence::present) << t.reason;
}

TEST(SassSignatureSpecificity, TheRegisterTiledSgemmReusesEachLoadedWordAndTheNaiveOneDoesNot) {
  const auto listing = new_dump("methods.sm_90");
  const auto tile = check(listing, "compute.ilp_unroll_register_tile", "sgemm_register_tile");
  ASSERT_EQ(tile.presence, method_presence::present) << tile.reason;
  // Its inner loop: 64 FFMA (acc[4][4], unrolled 4) over 8 LDS.128, 2 per word; at least 1.5.
  const auto& signature = *signature_table::builtin().find("compute.ilp_unroll_register_tile");
  EXPECT_DOUBLE_EQ(signature.min_reuse, 1.5);
  const auto* kernel = listing.find_kernel("sgemm_register_tile");
  ASSERT_NE(kernel, nullptr);
  std::vector<std::string> mnemonics;
  for (const auto& i : kernel->instructions)
    mnemonics.push_back(i.mnemonic());
  const auto found = find_register_tile(*kernel, signature.patterns, mnemonics, 4, 1.5);
  EXPECT_NE(found.detail.find("64 multiply-adds per 32 loaded 32-bit words (2.00)"), std::string::npos) << found.detail;
  EXPECT_FALSE(find_register_tile(*kernel, signature.patterns, mnemonics, 4, 2.5).present)
    << "the bound is what decides";
  const auto naive = check(new_dump("sgemm_naive.sm_90"), "compute.ilp_unroll_register_tile", "sgemm");
  EXPECT_EQ(naive.presence, method_presence::absent) << naive.reason;
}

TEST(SassSignatureSpecificity, A64BitAccessIsNoVectorisationAndA128BitOneIs) {
  EXPECT_EQ(check(synthetic({"LDG.E.64 R2, [R4.64]", "STG.E.64 [R6.64], R2", "EXIT"}),
                  "memory.vectorized_access", "k").presence,
            method_presence::absent);
  EXPECT_EQ(check(synthetic({"LDG.E.128 R0, [R4.64]", "EXIT"}), "memory.vectorized_access", "k").presence,
            method_presence::present);
  // The real dumps: the float4 copy has it, the register-tiled SGEMM reads its shared tiles as
  // LDS.128; the naive kernels of the examples do not.
  const auto signatures = test::load_dump("signatures.sm_90a", sass_format::nvdisasm);
  EXPECT_EQ(check(signatures, "memory.vectorized_access", "vectorized_copy").presence, method_presence::present);
  EXPECT_EQ(check(new_dump("methods.sm_90"), "memory.vectorized_access", "sgemm_register_tile").presence,
            method_presence::present);
}

TEST(SassSignatureSpecificity, AConversionOrAWideningIsNoMixedPrecisionHalfMathIs) {
  EXPECT_EQ(check(synthetic({"F2FP.F16.F32.PACK_AB R0, R1, R2", "HADD2.F32 R3, -RZ, R4.H0_H0", "F2H R5, R6",
                             "HFMA2.MMA R7, -RZ, RZ, 1, 0", "EXIT"}),
                  "compute.mixed_precision", "k").presence,
            method_presence::absent);
  EXPECT_EQ(check(synthetic({"HFMA2 R0, R1, R2, R3", "EXIT"}), "compute.mixed_precision", "k").presence,
            method_presence::present);
}

// Every example's plain kernel, against every signature tightened here: none fires.
TEST(SassSignatureSpecificity, TheNaiveExampleKernelsShowNoneOfTheTightenedMethods) {
  struct plain {
    const char* dump;
    const char* kernel;
    bool nvdisasm_only;
  };
  for (const auto& p : {plain{"vector_add.sm_90", "vector_add", false}, plain{"transpose_naive.sm_90", "transpose", false},
                        plain{"row_reduction_smem.sm_90", "row_sum", false}, plain{"softmax.sm_90", "softmax", true},
                        plain{"sgemm_naive.sm_90", "sgemm", true}}) {
    const auto listing = p.nvdisasm_only ? new_dump(p.dump) : test::load_dump(p.dump, sass_format::nvdisasm);
    for (const auto* id : {"compute.ilp_unroll_register_tile", "memory.vectorized_access", "compute.mixed_precision"})
      EXPECT_EQ(check(listing, id, p.kernel).presence, method_presence::absent) << p.dump << ": " << id;
  }
}

} // namespace
} // namespace warpforge::sass
