#include "sass/parser.hpp"

#include "sass_test_support.hpp"

#include <gtest/gtest.h>

#include <set>

namespace warpforge::sass {
namespace {

using test::fixture_stems;
using test::load_dump;

// sm_90 instructions are 128 bits wide, so consecutive addresses are 16 bytes apart.
constexpr std::uint64_t sm90_instruction_bytes = 16;

class SassParserFixture
    : public ::testing::TestWithParam<std::tuple<std::string_view, sass_format>> {};

TEST_P(SassParserFixture, ParsesEveryKernelWithContiguousAddressesAndAnOpcodeEach) {
  const auto [stem, format] = GetParam();
  const auto listing = load_dump(stem, format);
  EXPECT_EQ(listing.format, format);
  ASSERT_FALSE(listing.kernels.empty());
  for (const auto& kernel : listing.kernels) {
    SCOPED_TRACE(kernel.name);
    EXPECT_FALSE(kernel.name.empty());
    EXPECT_TRUE(kernel.arch == "sm_90" || kernel.arch == "sm_90a") << kernel.arch;
    ASSERT_FALSE(kernel.instructions.empty());
    EXPECT_EQ(kernel.instructions.front().address, 0u);
    for (std::size_t i = 0; i < kernel.instructions.size(); ++i) {
      const auto& instruction = kernel.instructions[i];
      EXPECT_EQ(instruction.address, i * sm90_instruction_bytes) << instruction.text;
      EXPECT_FALSE(instruction.opcode.empty()) << instruction.text;
      EXPECT_EQ(instruction.text.find(';'), std::string::npos) << instruction.text;
      EXPECT_EQ(instruction.text.find("/*"), std::string::npos) << instruction.text;
      EXPECT_GT(instruction.line, kernel.line);
    }
    EXPECT_EQ(kernel.instructions.back().opcode, "NOP"); // ptxas pads every kernel's end
  }
}

TEST_P(SassParserFixture, DetectsWhichToolWroteTheDump) {
  const auto [stem, format] = GetParam();
  EXPECT_EQ(detect_sass_format(test::read_file(test::dump_path(stem, format))), format);
  auto detected = parse_sass(test::read_file(test::dump_path(stem, format)));
  ASSERT_TRUE(detected) << detected.error().to_string();
  EXPECT_EQ(detected->format, format);
}

TEST_P(SassParserFixture, RefusesTheDumpWhenTheOtherLayoutIsDeclared) {
  const auto [stem, format] = GetParam();
  const auto other = format == sass_format::nvdisasm ? sass_format::cuobjdump : sass_format::nvdisasm;
  auto parsed = parse_sass(test::read_file(test::dump_path(stem, format)), other);
  ASSERT_FALSE(parsed);
  EXPECT_GT(parsed.error().line, 0u);
  EXPECT_NE(parsed.error().message.find("outside any kernel"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    AllFixtures, SassParserFixture,
    ::testing::Combine(::testing::ValuesIn(fixture_stems), ::testing::ValuesIn(all_sass_formats)),
    [](const auto& param) {
      std::string name{std::get<0>(param.param)};
      for (auto& c : name)
        if (c == '.')
          c = '_';
      return name + "_" + std::string{to_string(std::get<1>(param.param))};
    });

class SassParserBothFormats : public ::testing::TestWithParam<std::string_view> {};

TEST_P(SassParserBothFormats, GiveTheSameKernelsAndInstructionSequences) {
  const auto nvdisasm = load_dump(GetParam(), sass_format::nvdisasm);
  const auto cuobjdump = load_dump(GetParam(), sass_format::cuobjdump);
  ASSERT_EQ(nvdisasm.kernel_names(), cuobjdump.kernel_names());
  for (std::size_t k = 0; k < nvdisasm.kernels.size(); ++k) {
    const auto& a = nvdisasm.kernels[k];
    const auto& b = cuobjdump.kernels[k];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.arch, b.arch);
    ASSERT_EQ(a.instructions.size(), b.instructions.size());
    for (std::size_t i = 0; i < a.instructions.size(); ++i) {
      const auto& x = a.instructions[i];
      const auto& y = b.instructions[i];
      EXPECT_EQ(x.address, y.address);
      EXPECT_EQ(x.predicate, y.predicate) << x.text << " | " << y.text;
      EXPECT_EQ(x.mnemonic(), y.mnemonic()) << x.text << " | " << y.text;
      EXPECT_EQ(x.operands.size(), y.operands.size()) << x.text << " | " << y.text;
      // Branch targets differ in spelling (nvdisasm: `(.L_x_5), cuobjdump: 0x140); the rest agrees.
      if (x.text.find('`') == std::string::npos) {
        EXPECT_EQ(x.operands, y.operands) << x.text << " | " << y.text;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, SassParserBothFormats, ::testing::ValuesIn(fixture_stems),
                         [](const auto& param) {
                           std::string name{param.param};
                           for (auto& c : name)
                             if (c == '.')
                               c = '_';
                           return name;
                         });

TEST(SassParser, ReadsAddressPredicateOpcodeModifiersAndOperandsOfVectorAdd) {
  for (auto format : all_sass_formats) {
    SCOPED_TRACE(to_string(format));
    const auto listing = load_dump("vector_add.sm_90", format);
    ASSERT_EQ(listing.kernel_names(), std::vector<std::string>{"vector_add"});
    const auto& code = listing.kernels[0].instructions;
    ASSERT_EQ(code.size(), 32u); // 0x0000 .. 0x01f0

    EXPECT_EQ(code[0].text, "LDC R1, c[0x0][0x28]");
    EXPECT_EQ(code[0].opcode, "LDC");
    EXPECT_TRUE(code[0].modifiers.empty());
    EXPECT_EQ(code[0].operands, (std::vector<std::string>{"R1", "c[0x0][0x28]"}));

    const auto& guarded_exit = code[6];
    EXPECT_EQ(guarded_exit.address, 0x60u);
    EXPECT_EQ(guarded_exit.predicate, "P0");
    EXPECT_EQ(guarded_exit.opcode, "EXIT");
    EXPECT_TRUE(guarded_exit.operands.empty());
    EXPECT_EQ(guarded_exit.text, "@P0 EXIT");

    const auto& load = code[12];
    EXPECT_EQ(load.address, 0xc0u);
    EXPECT_EQ(load.opcode, "LDG");
    EXPECT_EQ(load.modifiers, (std::vector<std::string>{"E", "CONSTANT"}));
    EXPECT_EQ(load.operands, (std::vector<std::string>{"R3", "desc[UR4][R2.64]"}));

    const auto& compare = code[5];
    EXPECT_EQ(compare.mnemonic(), "ISETP.GE.AND");
    EXPECT_EQ(compare.operands, (std::vector<std::string>{"P0", "PT", "R9", "UR4", "PT"}));

    EXPECT_EQ(code[31].text, "NOP");
  }
}

TEST(SassParser, FindsTheSevenKernelsOfTheSignaturesCubinForSm90a) {
  const std::set<std::string> expected{"vectorized_copy", "smem_transpose", "async_copy",
                                       "wmma_gemm_tile",  "warp_reduce",    "special_functions",
                                       "register_spill"};
  for (auto format : all_sass_formats) {
    const auto listing = load_dump("signatures.sm_90a", format);
    const auto names = listing.kernel_names();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
    for (const auto& kernel : listing.kernels)
      EXPECT_EQ(kernel.arch, "sm_90a") << kernel.name;
    const auto* async = listing.find_kernel("async_copy");
    ASSERT_NE(async, nullptr);
    const auto padding = std::count_if(async->instructions.begin(), async->instructions.end(),
                                       [](const auto& i) { return i.never_executes(); });
    EXPECT_EQ(padding, 3); // `@!PT LDS RZ, [RZ]` three times before the LDGSTS
  }
}

TEST(SassParser, SkipsLineInfoCommentsFatbinHeadersAndDualIssueBraces) {
  const std::string text = R"sass(
Fatbin elf code:
================
arch = sm_80
code version = [1,7]
host = linux
compile_size = 64bit

	code for sm_80
		Function : _Z5firstPf
	.headerflags	@"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;        /* 0x00000a0000017a02 */
                                                                 /* 0x000fc40000000f00 */
        { /*0010*/                 IADD3 R0, R1, 0x1, RZ ;  }    /* 0x0000000101007810 */
        /*0020*/              @!P1 BRA 0x40 ;
		..........

Fatbin elf code:
================
arch = sm_90
	code for sm_90
		Function : second
        /*0000*/                   EXIT ;
)sass";
  auto parsed = parse_sass(text, sass_format::cuobjdump);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->kernels.size(), 2u);
  const auto& first = parsed->kernels[0];
  EXPECT_EQ(first.name, "_Z5firstPf");
  EXPECT_EQ(first.arch, "sm_80");
  ASSERT_EQ(first.instructions.size(), 3u);
  EXPECT_EQ(first.instructions[1].mnemonic(), "IADD3");
  EXPECT_EQ(first.instructions[1].operands, (std::vector<std::string>{"R0", "R1", "0x1", "RZ"}));
  EXPECT_EQ(first.instructions[2].predicate, "!P1");
  EXPECT_EQ(first.instructions[2].line, 15u);
  EXPECT_EQ(parsed->kernels[1].arch, "sm_90");
  EXPECT_EQ(parsed->kernels[1].instructions[0].opcode, "EXIT");
}

TEST(SassParser, ReadsNvdisasmSectionsWithLineInfoAndOperandGroups) {
  const std::string text = R"sass(	.target	sm_90a
//--------------------- .text.mma_kernel        --------------------------
	.section	.text.mma_kernel,"ax",@progbits
mma_kernel:
	//## File "kernel.cu", line 12
        /*0000*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24, gsb0 ;
.L_x_0:
        /*0010*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0020*/                   SHFL.BFLY PT, R3, R2, 0x1, 0x1f ;
//--------------------- SYMBOLS --------------------------
	.type		.nv.reservedSmem.offset0,@object
)sass";
  auto parsed = parse_sass(text, sass_format::nvdisasm);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->kernel_names(), std::vector<std::string>{"mma_kernel"});
  const auto& code = parsed->kernels[0].instructions;
  ASSERT_EQ(code.size(), 3u);
  EXPECT_EQ(parsed->kernels[0].arch, "sm_90a");
  EXPECT_EQ(code[0].opcode, "HGMMA");
  EXPECT_EQ(code[0].modifiers, (std::vector<std::string>{"64x128x16", "F32", "BF16"}));
  EXPECT_EQ(code[0].operands, (std::vector<std::string>{"R24", "gdesc[UR4]", "R24", "gsb0"}));
  EXPECT_EQ(code[1].operands, (std::vector<std::string>{"[UR8]", "[UR4]"}));
  EXPECT_EQ(code[2].mnemonic(), "SHFL.BFLY");
}

TEST(SassParser, RejectsAnInstructionOutsideAnyKernelNamingItsLine) {
  auto parsed = parse_sass("\n\t.target sm_90\n        /*0000*/   NOP ;\n", sass_format::nvdisasm);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().line, 3u);
  EXPECT_EQ(parsed.error().to_string().substr(0, 8), "line 3: ");
  EXPECT_NE(parsed.error().message.find("'NOP'"), std::string::npos);
}

TEST(SassParser, RejectsAnAddressWithNoInstruction) {
  auto parsed = parse_sass("\t\tFunction : k\n        /*0000*/    ;\n", sass_format::cuobjdump);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().line, 2u);
  EXPECT_NE(parsed.error().message.find("no instruction after the address"), std::string::npos);
}

TEST(SassParser, RefusesToGuessTheLayoutOfTextThatIsNoListing) {
  EXPECT_EQ(detect_sass_format("hello\nworld\n"), std::nullopt);
  auto parsed = parse_sass("hello\nworld\n");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().line, 0u);
  EXPECT_NE(parsed.error().message.find("not a SASS listing"), std::string::npos);
}

TEST(SassParser, AListingWithoutKernelsIsEmptyNotAnError) {
  auto parsed = parse_sass("\t.target\tsm_90\n\n\t.elftype\t@\"ET_EXEC\"\n", sass_format::nvdisasm);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->kernels.empty());
}

} // namespace
} // namespace warpforge::sass
