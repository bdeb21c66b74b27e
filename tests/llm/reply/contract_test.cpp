#include "llm/reply/contract.hpp"

#include "tests/llm/reply/reply_test_support.hpp"

#include <gtest/gtest.h>

namespace warpforge::llm {
namespace {

using testing::catalog_ids;
using testing::read_text;
using types = std::vector<std::string>;

/// Kernels written as the CUDA samples write them (issue 29): C++ linkage, a template of one
/// block size, a template of a type, a size and a flag, beside other kernels of the file.
const std::string samples_source = R"(#include "helper.h"
#define TILE_DIM 16
__global__ void copy(float *odata, float *idata, int width, int height) { odata[0] = idata[0]; }
// the naive transpose
__global__ void transposeNaive(float *odata, float *idata, int width, int height) {
  odata[threadIdx.x] = idata[threadIdx.x];
}
template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A,
    float *B, int wA,
    int wB) {
  C[0] = A[0] * B[0];
}
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce7(const T *__restrict__ g_idata, T *__restrict__ g_odata,
                        unsigned int n) {
  g_odata[0] = g_idata[0];
}
)";

TEST(Contract, TheTransposeExampleKeepsItsEntryAndParameterTypes) {
  auto contract = contract_from_source(read_text("examples/transpose/kernel.cu"), "transpose",
                                       catalog_ids(), 3);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->entry, "transpose");
  EXPECT_EQ(contract->parameter_types, (types{"const float*", "float*", "int", "int"}));
  EXPECT_EQ(contract->max_variants, 3u);
  EXPECT_EQ(contract->known_methods, catalog_ids());
  EXPECT_TRUE(contract->extern_c);
  EXPECT_EQ(contract->template_head, "");
  EXPECT_EQ(entry_declaration(*contract), "extern \"C\" __global__ void transpose(const float*, float*, int, int)");
}

TEST(Contract, TheSgemmExampleKeepsItsSixParameters) {
  auto contract =
    contract_from_source(read_text("examples/sgemm/kernel.cu"), "sgemm", catalog_ids(), 8);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->parameter_types,
            (types{"const float*", "const float*", "float*", "int", "int", "int"}));
}

TEST(Contract, TheReferenceKernelOfAnExampleIsReadToo) {
  auto contract = contract_from_source(read_text("examples/transpose/reference.cu"),
                                       "transpose_reference", {}, 1);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->parameter_types.size(), 4u);
}

TEST(Contract, AMissingEntryIsNamed) {
  auto contract =
    contract_from_source(read_text("examples/sgemm/kernel.cu"), "gemm", catalog_ids(), 8);
  ASSERT_FALSE(contract);
  EXPECT_NE(contract.error().find("no definition of the entry 'gemm'"), std::string::npos)
    << contract.error();
}

TEST(Contract, AnEntryThatIsNotGlobalIsRefusedWithItsPlace) {
  auto device = contract_from_source("\nextern \"C\" __device__ void k(int n) { }", "k", {}, 1);
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().find("not __global__"), std::string::npos) << device.error();
  EXPECT_NE(device.error().find("line 2"), std::string::npos) << device.error();
}

TEST(Contract, ACxxLinkageEntryIsKeptAsCxx) {
  auto contract = contract_from_source(samples_source, "transposeNaive", catalog_ids(), 4);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->entry, "transposeNaive");
  EXPECT_FALSE(contract->extern_c);
  EXPECT_EQ(contract->template_head, "");
  EXPECT_EQ(contract->parameter_types, (types{"float*", "float*", "int", "int"}));
  EXPECT_EQ(entry_declaration(*contract), "__global__ void transposeNaive(float*, float*, int, int)");
}

TEST(Contract, ATemplateEntryKeepsItsNameAndTemplateHeadAsWritten) {
  auto contract = contract_from_source(samples_source, "MatrixMulCUDA<32>", catalog_ids(), 4);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->entry, "MatrixMulCUDA") << "the base name, not the instantiation";
  EXPECT_FALSE(contract->extern_c);
  EXPECT_EQ(contract->template_head, "template <int BLOCK_SIZE>");
  EXPECT_EQ(contract->parameter_types, (types{"float*", "float*", "float*", "int", "int"}));
  EXPECT_EQ(entry_declaration(*contract),
            "template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float*, float*, float*, int, int)");
  auto tunable = contract_from_source(samples_source, "MatrixMulCUDA<BLOCK>", catalog_ids(), 4);
  ASSERT_TRUE(tunable) << tunable.error();
  EXPECT_EQ(tunable->template_head, "template <int BLOCK_SIZE>") << "a tunable template argument reads the same";
}

TEST(Contract, ATemplateOfATypeKeepsItsParametersTextually) {
  auto contract = contract_from_source(samples_source, "reduce7<int, 256u, true>", catalog_ids(), 4);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->entry, "reduce7");
  EXPECT_EQ(contract->template_head, "template <class T, unsigned int blockSize, bool nIsPow2>")
    << "the head's line break is one space";
  EXPECT_EQ(contract->parameter_types, (types{"const T*", "T*", "unsigned int"}));
}

TEST(Contract, AnEntryAndADefinitionOfAnotherTemplateFormAreRefused) {
  auto plain_for_template = contract_from_source(samples_source, "MatrixMulCUDA", {}, 1);
  ASSERT_FALSE(plain_for_template);
  EXPECT_NE(plain_for_template.error().find("is a template (template <int BLOCK_SIZE>): name its instantiation"),
            std::string::npos)
    << plain_for_template.error();
  auto template_for_plain = contract_from_source(samples_source, "transposeNaive<4>", {}, 1);
  ASSERT_FALSE(template_for_plain);
  EXPECT_NE(template_for_plain.error().find("not a template, but the entry 'transposeNaive<4>' instantiates one"),
            std::string::npos)
    << template_for_plain.error();
}

TEST(Contract, OverloadsAreToldApartByTheEntrysParameterTypes) {
  const std::string source = "__global__ void over(const float* __restrict__ x, int n) { }\n"
                             "__global__ void over(double* x) { }\n";
  auto first = contract_from_source(source, "over(float const*, int)", {}, 1);
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first->parameter_types, (types{"const float*", "int"})) << "float const* is const float*";
  auto second = contract_from_source(source, "over(double*)", {}, 1);
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(second->parameter_types, (types{"double*"}));
  auto ambiguous = contract_from_source(source, "over", {}, 1);
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().find("2 __global__ definitions of 'over' (at line 1 column 17 and line 2 column 17)"),
            std::string::npos)
    << ambiguous.error();
  EXPECT_NE(ambiguous.error().find("e.g. over(const float*, int)"), std::string::npos) << ambiguous.error();
  auto none = contract_from_source(source, "over(int)", {}, 1);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("no __global__ 'over' takes (int)"), std::string::npos) << none.error();
}

TEST(Contract, AnEntryThatDoesNotParseIsRefusedWithItsColumn) {
  auto contract = contract_from_source(samples_source, "MatrixMulCUDA<32", {}, 1);
  ASSERT_FALSE(contract);
  EXPECT_NE(contract.error().find("the entry 'MatrixMulCUDA<32': column 14"), std::string::npos) << contract.error();
}

} // namespace
} // namespace warpforge::llm
