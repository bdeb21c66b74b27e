#include "llm/reply/contract.hpp"

#include "tests/llm/reply/reply_test_support.hpp"

#include <gtest/gtest.h>

namespace warpforge::llm {
namespace {

using testing::catalog_ids;
using testing::read_text;
using types = std::vector<std::string>;

TEST(Contract, TheTransposeExampleKeepsItsEntryAndParameterTypes) {
  auto contract = contract_from_source(read_text("examples/transpose/kernel.cu"), "transpose",
                                       catalog_ids(), 3);
  ASSERT_TRUE(contract) << contract.error();
  EXPECT_EQ(contract->entry, "transpose");
  EXPECT_EQ(contract->parameter_types, (types{"const float*", "float*", "int", "int"}));
  EXPECT_EQ(contract->max_variants, 3u);
  EXPECT_EQ(contract->known_methods, catalog_ids());
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

TEST(Contract, AnEntryThatIsNotExternCOrNotGlobalIsRefused) {
  auto mangled = contract_from_source("__global__ void k(int n) { }", "k", {}, 1);
  ASSERT_FALSE(mangled);
  EXPECT_NE(mangled.error().find("not extern \"C\""), std::string::npos) << mangled.error();
  EXPECT_NE(mangled.error().find("line 1"), std::string::npos) << mangled.error();
  auto device = contract_from_source("extern \"C\" __device__ void k(int n) { }", "k", {}, 1);
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().find("not __global__"), std::string::npos) << device.error();
}

} // namespace
} // namespace warpforge::llm
