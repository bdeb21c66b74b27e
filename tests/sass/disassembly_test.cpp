#include "sass/disassembly.hpp"

#include <gtest/gtest.h>

namespace warpforge::sass {
namespace {

TEST(SassDisassembly, EveryFormatRoundTripsThroughItsName) {
  for (auto format : all_sass_formats)
    EXPECT_EQ(sass_format_from_string(to_string(format)), format);
  EXPECT_EQ(to_string(sass_format::nvdisasm), "nvdisasm");
  EXPECT_EQ(to_string(sass_format::cuobjdump), "cuobjdump");
  EXPECT_EQ(sass_format_from_string("objdump"), std::nullopt);
}

TEST(SassDisassembly, MnemonicJoinsOpcodeAndModifiersWithDots) {
  sass_instruction load;
  load.opcode = "LDG";
  load.modifiers = {"E", "128", "CONSTANT"};
  EXPECT_EQ(load.mnemonic(), "LDG.E.128.CONSTANT");
  sass_instruction exit;
  exit.opcode = "EXIT";
  EXPECT_EQ(exit.mnemonic(), "EXIT");
}

TEST(SassDisassembly, OnlyTheConstantFalsePredicateNeverExecutes) {
  sass_instruction instruction;
  instruction.opcode = "LDS";
  EXPECT_FALSE(instruction.never_executes());
  instruction.predicate = "!PT";
  EXPECT_TRUE(instruction.never_executes());
  instruction.predicate = "!P0";
  EXPECT_FALSE(instruction.never_executes());
  instruction.predicate = "PT";
  EXPECT_FALSE(instruction.never_executes());
}

TEST(SassDisassembly, FindsKernelsByExactNameAndCountsTheirInstructions) {
  disassembly listing;
  listing.kernels.push_back({"copy", "sm_90", 3, {{}, {}}});
  listing.kernels.push_back({"_Z4scalePf", "sm_90", 20, {{}}});
  EXPECT_EQ(listing.find_kernel("copy"), &listing.kernels[0]);
  EXPECT_EQ(listing.find_kernel("_Z4scalePf"), &listing.kernels[1]);
  EXPECT_EQ(listing.find_kernel("cop"), nullptr);
  EXPECT_EQ(listing.kernel_names(), (std::vector<std::string>{"copy", "_Z4scalePf"}));
  EXPECT_EQ(listing.instruction_count(), 3u);
}

} // namespace
} // namespace warpforge::sass
