#include "llm/reply/source_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace warpforge::llm::source_text {
namespace {

using types = std::vector<std::string>;

TEST(SourceText, BlankingKeepsLengthAndLinesAndCollectsComments) {
  const std::string source = "int a; // one\n/* two\nlines */ const char* s = \"x // y\";\nchar c = '\"';";
  const auto out = blank(source);
  ASSERT_EQ(out.without_comments.size(), source.size());
  ASSERT_EQ(out.code_only.size(), source.size());
  ASSERT_EQ(out.comments.size(), 2u);
  EXPECT_EQ(out.comments[0].text, " one");
  EXPECT_EQ(out.comments[1].text, " two\nlines ");
  EXPECT_EQ(out.comments[1].offset, source.find("/*"));
  EXPECT_NE(out.without_comments.find("\"x // y\""), std::string::npos) << "literals kept";
  EXPECT_EQ(out.code_only.find("x // y"), std::string::npos) << "literal contents blanked";
  EXPECT_NE(out.code_only.find("char c = ' ';"), std::string::npos);
  EXPECT_EQ(std::count(out.code_only.begin(), out.code_only.end(), '\n'), 3);
}

TEST(SourceText, ADigitSeparatorDoesNotOpenACharLiteral) {
  const auto out = blank("int n = 1'000; // note\n");
  ASSERT_EQ(out.comments.size(), 1u);
  EXPECT_EQ(out.comments[0].text, " note");
}

TEST(SourceText, PositionsAreOneBasedLinesAndColumns) {
  const std::string text = "ab\ncd\n";
  EXPECT_EQ(position_of(text, 0).line, 1u);
  EXPECT_EQ(position_of(text, 4).line, 2u);
  EXPECT_EQ(position_of(text, 4).column, 2u);
  EXPECT_EQ(describe(position_of(text, 4)), "line 2 column 2");
}

TEST(SourceText, ParameterTypesDropNamesRestrictAndTopLevelConst) {
  EXPECT_EQ(parameter_types("const float* __restrict__ in, float *out, int n"),
            (types{"const float*", "float*", "int"}));
  EXPECT_EQ(parameter_types("float const *in"), (types{"const float*"}));
  EXPECT_EQ(parameter_types("const int n, float* const p"), (types{"int", "float*"}));
  EXPECT_EQ(parameter_types("unsigned n, unsigned long long m, const volatile int* f"),
            (types{"unsigned int", "unsigned long long", "const volatile int*"}));
  EXPECT_EQ(parameter_types("const __grid_constant__ params p"), (types{"params"}));
  EXPECT_EQ(parameter_types("float* const* rows, half"), (types{"float* const*", "half"}));
  EXPECT_EQ(parameter_types("void"), types{});
  EXPECT_EQ(parameter_types("  "), types{});
}

TEST(SourceText, DefinitionsCarryTheirQualifiersAndExternC) {
  const auto views = blank(R"(#define T 4
__device__ float twice(float v) { return 2 * v; }
extern "C" __global__ void __launch_bounds__(T * 32)
first(float* p) { if (p) { p[0] = twice(p[0]); } }
__global__ void second(int n) {}
extern "C" {
__global__ void third() { }
}
)");
  const auto found = find_definitions(views);
  ASSERT_EQ(found.size(), 4u) << "if (...) { } is not a definition";
  EXPECT_EQ(found[0].name, "twice");
  EXPECT_TRUE(found[0].is_device);
  EXPECT_FALSE(found[0].is_global);
  EXPECT_EQ(found[1].name, "first");
  EXPECT_TRUE(found[1].is_global);
  EXPECT_TRUE(found[1].is_extern_c);
  EXPECT_EQ(parameter_types(found[1].parameters), types{"float*"});
  EXPECT_EQ(found[2].name, "second");
  EXPECT_FALSE(found[2].is_extern_c);
  EXPECT_EQ(found[3].name, "third");
  EXPECT_TRUE(found[3].is_extern_c) << "inside an extern \"C\" { } block";
}

TEST(SourceText, ATemplateDefinitionCarriesItsHeadAsWrittenOnOneLine) {
  const auto views = blank(R"(#define BLOCK 16
template <class T,
          unsigned int blockSize /* threads */, bool nIsPow2>
__global__ void reduce7(const T *__restrict__ g_idata, T *__restrict__ g_odata, unsigned int n) { }
template<int N, bool B = (N > 2)> __global__ void shifted(float* p) { }
__global__ void plain(float* p) { }
)");
  const auto found = find_definitions(views);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].template_head, "template <class T, unsigned int blockSize , bool nIsPow2>")
    << "blank runs (a comment, a line break) are one space";
  EXPECT_EQ(parameter_types(found[0].parameters), (types{"const T*", "T*", "unsigned int"}));
  EXPECT_EQ(found[1].template_head, "template<int N, bool B = (N > 2)>") << "a '>' in parentheses closes nothing";
  EXPECT_EQ(found[2].template_head, "");
}

TEST(SourceText, DescribedSignaturesListTheTypes) {
  EXPECT_EQ(describe_signature("k", {"const float*", "int"}), "k(const float*, int)");
  EXPECT_EQ(describe_signature("k", {}), "k()");
}

} // namespace
} // namespace warpforge::llm::source_text
