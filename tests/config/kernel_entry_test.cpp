#include "config/kernel_entry.hpp"

#include <gtest/gtest.h>

using namespace warpforge::config;

namespace {

std::string canonical(std::string_view text) {
  auto entry = parse_kernel_entry(text);
  return entry ? to_string(*entry) : "error: " + entry.error();
}

} // namespace

TEST(KernelEntry, NamesTemplatesAndParameterTypesAreReadAndSpelledOneWay) {
  EXPECT_EQ(canonical("transposeNaive"), "transposeNaive");
  EXPECT_EQ(canonical("  MatrixMulCUDA < 32 > "), "MatrixMulCUDA<32>");
  EXPECT_EQ(canonical("reduce7<int,256u,true>"), "reduce7<int, 256, true>");
  EXPECT_EQ(canonical("reduce7<int, 256UL, true>"), "reduce7<int, 256, true>");
  EXPECT_EQ(canonical("k<0x10u, -3>"), "k<0x10, -3>");
  EXPECT_EQ(canonical("ns::inner::k<float>"), "ns::inner::k<float>");
  EXPECT_EQ(canonical("::k"), "::k");
  EXPECT_EQ(canonical("over(const float *, unsigned)"), "over(float const*, unsigned int)");
  EXPECT_EQ(canonical("over(unsigned   long  long, float&)"), "over(unsigned long long, float&)");
  EXPECT_EQ(canonical("f(void)"), "f()");
  EXPECT_EQ(canonical("k<Vec<float,4>, 2>"), "k<Vec<float, 4>, 2>");
}

TEST(KernelEntry, WhatIsNotAnEntrySaysWhereAndWhy) {
  EXPECT_EQ(canonical(""), "error: the entry is empty");
  EXPECT_EQ(canonical("k;rm"), "error: column 2: ';' cannot appear in an entry (letters, digits, _, ::, <>, (), ',', "
                               "*, & and - only)");
  EXPECT_EQ(canonical("k\n#include \"x\""), "error: column 2: '\\x0a' cannot appear in an entry (letters, digits, "
                                              "_, ::, <>, (), ',', *, & and - only)");
  EXPECT_EQ(canonical("MatrixMulCUDA<32"), "error: column 14: '<' is never closed with '>'");
  EXPECT_EQ(canonical("k<1>>"), "error: column 5: '>' after the entry: write name, <template arguments>, "
                                "(parameter types)");
  EXPECT_EQ(canonical("k<,1>"), "error: column 3: a template argument is missing");
  EXPECT_EQ(canonical("32k"), "error: column 1: a function name is expected");
  EXPECT_EQ(canonical("ns::"), "error: at the end: a function name is expected");
  EXPECT_EQ(canonical(std::string(max_entry_bytes + 1, 'k')),
            "error: the entry is " + std::to_string(max_entry_bytes + 1) + " bytes long, more than " +
              std::to_string(max_entry_bytes));
}

TEST(KernelEntry, ATemplateArgumentNamingATunableTakesItsValueAtThePoint) {
  const warpforge::expression::integer_values point{{"BLOCK", 32}, {"UNROLL", 4}};
  EXPECT_EQ(entry_at_point("MatrixMulCUDA<BLOCK>", point), "MatrixMulCUDA<32>");
  EXPECT_EQ(entry_at_point("reduce7<float, BLOCK, true>", point), "reduce7<float, 32, true>");
  EXPECT_EQ(entry_at_point("k<BLOCK_X>", point), "k<BLOCK_X>") << "only whole arguments that are tunables";
  EXPECT_EQ(entry_at_point("BLOCK(float*)", point), "BLOCK(float*)") << "the name is never replaced";
  EXPECT_EQ(entry_at_point("vector_add", point), "vector_add");
}

TEST(KernelEntry, ThePlainNameAndTheBaseNameAreTold) {
  const auto plain = parse_kernel_entry("vector_add");
  const auto templated = parse_kernel_entry("ns::k<4>(float*)");
  ASSERT_TRUE(plain && templated);
  EXPECT_TRUE(is_plain_name(*plain));
  EXPECT_FALSE(is_plain_name(*templated));
  EXPECT_EQ(base_name(*templated), "k");
  EXPECT_EQ(templated->template_arguments, std::vector<std::string>{"4"});
  EXPECT_EQ(templated->parameters, std::vector<std::string>{"float*"});
}
