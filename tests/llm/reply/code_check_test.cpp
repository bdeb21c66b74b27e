#include "llm/reply/code_check.hpp"

#include "tests/llm/reply/reply_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace warpforge::llm {
namespace {

using testing::scale_contract;
using testing::scale_kernel;

std::vector<reply_problem> check(const std::string& code) {
  return check_code(code, "variants[0].code", scale_contract());
}

// The single problem of `code`; fails the test unless there is exactly one, of `fault`.
reply_problem only_problem(const std::string& code, reply_fault fault) {
  const auto problems = check(code);
  EXPECT_EQ(problems.size(), 1u);
  for (const auto& p : problems)
    EXPECT_EQ(p.fault, fault) << to_string(p.fault) << " at " << p.where << ": " << p.reason;
  return problems.empty() ? reply_problem{} : problems.front();
}

// scale_kernel with `from` replaced by `to` (which must occur).
std::string edited(const std::string& from, const std::string& to) {
  std::string code = scale_kernel;
  const auto at = code.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? code : code.replace(at, from.size(), to);
}

TEST(CodeCheck, ACompleteKernelWithTheContractsSignaturePasses) {
  EXPECT_TRUE(check(scale_kernel).empty());
}

TEST(CodeCheck, TheExamplesOwnKernelsPassTheirContracts) {
  for (const auto& [example, entry] : {std::pair{"transpose", "transpose"}, {"sgemm", "sgemm"}}) {
    const auto contract = testing::example_contract(example, entry);
    const auto problems =
      check_code(testing::read_text(std::string{"examples/"} + example + "/kernel.cu"), "code", contract);
    EXPECT_TRUE(problems.empty()) << example << ": " << problems.front().reason;
  }
}

TEST(CodeCheck, BlankCodeIsNoCode) {
  const auto problem = only_problem(" \n\t\n", reply_fault::no_code);
  EXPECT_EQ(problem.where, "variants[0].code");
}

TEST(CodeCheck, ElisionCommentsAreFoundWithTheirPlace) {
  for (const std::string comment : {"// ... rest unchanged", "// same as before", "/* TODO: bounds */",
                                    "// your code here", "// rest of the kernel as in the original",
                                    "// ..."}) {
    const auto problem = only_problem(edited("y[i] = 2.0f * x[i];", comment), reply_fault::elided_code);
    EXPECT_EQ(problem.where, "variants[0].code line 5 column 5") << comment;
    EXPECT_NE(problem.reason.find("complete kernel"), std::string::npos) << problem.reason;
  }
}

TEST(CodeCheck, AnEllipsisStandingForCodeIsElided) {
  const auto problem = only_problem(edited("    y[i] = 2.0f * x[i];", "    ..."), reply_fault::elided_code);
  EXPECT_EQ(problem.where, "variants[0].code line 5 column 5");
}

TEST(CodeCheck, EmptyBodiesOfTheEntryOrADeviceFunctionAreElided) {
  const std::string empty_entry =
    "extern \"C\" __global__ void scale(const float* x, float* y, int n) {\n}\n";
  EXPECT_NE(only_problem(empty_entry, reply_fault::elided_code).reason.find("'scale' is empty"),
            std::string::npos);
  const auto helper = only_problem("__device__ float load(const float* p) { }\n" + scale_kernel,
                                   reply_fault::elided_code);
  EXPECT_NE(helper.reason.find("'load'"), std::string::npos) << helper.reason;
}

TEST(CodeCheck, OrdinaryCommentsVariadicsAndStringsAreNotElision) {
  const std::string code = "// threads past n stay idle; loads a, b, and so on\n"
                           "template <typename... Ts> __device__ void log(Ts... args) { printf(\"...\", args...); }\n" +
                           scale_kernel;
  EXPECT_TRUE(check(code).empty()) << check(code).front().reason;
}

TEST(CodeCheck, NonAsciiIsPlacedWithTheByteAndAReplacement) {
  const auto problem = only_problem(edited("// y = 2 x", "// y = 2 \xC3\x97 x"), reply_fault::non_ascii);
  EXPECT_EQ(problem.where, "variants[0].code line 1 column 10");
  EXPECT_NE(problem.reason.find("0xC3"), std::string::npos) << problem.reason;
  EXPECT_NE(problem.reason.find("U+00D7"), std::string::npos) << problem.reason;
  EXPECT_NE(problem.reason.find("write x or *"), std::string::npos) << problem.reason;
}

TEST(CodeCheck, ManyProblemsOfOneFaultAreCappedAndCounted) {
  const auto problems = check(edited("// y = 2 x", "// \xE2\x80\x9C\xE2\x80\x9D \xE2\x80\x98\xE2\x80\x99 \xC2\xA0"));
  ASSERT_EQ(problems.size(), max_problems_per_fault + 1);
  EXPECT_EQ(problems.back().reason, "2 more like the 3 above");
  EXPECT_EQ(problems.back().fault, reply_fault::non_ascii);
}

TEST(CodeCheck, ARenamedEntryIsMissingAndNamesTheFunctionFound) {
  const auto problem = only_problem(edited("void scale(", "void scale_fast("), reply_fault::missing_entry);
  EXPECT_NE(problem.reason.find("'scale_fast'"), std::string::npos) << problem.reason;
  EXPECT_NE(problem.reason.find("extern \"C\" __global__ void scale(const float*, float*, int)"),
            std::string::npos)
    << problem.reason;
}

TEST(CodeCheck, AnEntryWithoutExternCIsMissing) {
  const auto problem = only_problem(edited("extern \"C\" ", ""), reply_fault::missing_entry);
  EXPECT_EQ(problem.where, "variants[0].code line 2 column 17");
  EXPECT_NE(problem.reason.find("mangled"), std::string::npos) << problem.reason;
}

// A kernel of C++ linkage and a template kernel, as the CUDA samples write them (issue 29).
const std::string naive_kernel = R"(__global__ void transposeNaive(float *odata, float *idata, int width, int height) {
  odata[threadIdx.x] = idata[threadIdx.x];
}
)";
const std::string matmul_kernel = R"(template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  C[threadIdx.x] = A[threadIdx.x] * B[threadIdx.x] + BLOCK_SIZE;
}
)";

kernel_contract contract_of(const std::string& source, const std::string& entry) {
  auto contract = contract_from_source(source, entry, testing::catalog_ids(), 4);
  EXPECT_TRUE(contract) << contract.error();
  return contract ? *contract : kernel_contract{};
}

std::string replaced(std::string code, const std::string& from, const std::string& to) {
  const auto at = code.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? code : code.replace(at, from.size(), to);
}

TEST(CodeCheck, ACxxLinkageKernelMayStayCxxButMayNotBecomeExternC) {
  const auto contract = contract_of(naive_kernel, "transposeNaive");
  EXPECT_TRUE(check_code(naive_kernel, "code", contract).empty());
  EXPECT_TRUE(check_code("extern \"C++\" " + naive_kernel, "code", contract).empty()) << "C++ linkage said out loud";
  const auto problems = check_code("extern \"C\" " + naive_kernel, "code", contract);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.front().fault, reply_fault::missing_entry);
  EXPECT_NE(problems.front().reason.find("declared extern \"C\", but the problem's kernel has C++ linkage"),
            std::string::npos)
    << problems.front().reason;
  EXPECT_NE(problems.front().reason.find("declare it as __global__ void transposeNaive(float*, float*, int, int)"),
            std::string::npos)
    << problems.front().reason;
}

TEST(CodeCheck, AnExternCKernelThatDropsExternCIsStillMissing) {
  const auto problems = check_code(replaced(scale_kernel, "extern \"C\" ", ""), "code", scale_contract());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.front().fault, reply_fault::missing_entry);
  EXPECT_NE(problems.front().reason.find("is not declared extern \"C\" as the problem's kernel is"), std::string::npos)
    << problems.front().reason;
}

TEST(CodeCheck, ATemplateKernelMayRenameItsTemplateParameterButMustStayATemplate) {
  const auto contract = contract_of(matmul_kernel, "MatrixMulCUDA<32>");
  EXPECT_TRUE(check_code(matmul_kernel, "code", contract).empty());
  const std::string renamed = replaced(replaced(matmul_kernel, "<int BLOCK_SIZE>", "<int TILE>"), "+ BLOCK_SIZE", "+ TILE");
  EXPECT_TRUE(check_code(renamed, "code", contract).empty()) << "the compiler instantiates it as MatrixMulCUDA<32>";
  const std::string plain = replaced(matmul_kernel, "template <int BLOCK_SIZE> ", "#define BLOCK_SIZE 32\n");
  const auto problems = check_code(plain, "code", contract);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.front().fault, reply_fault::missing_entry);
  EXPECT_EQ(problems.front().where, "code line 2 column 17");
  EXPECT_NE(problems.front().reason.find("'MatrixMulCUDA' is not a template, but the problem's kernel is one "
                                         "(template <int BLOCK_SIZE>)"),
            std::string::npos)
    << problems.front().reason;
  EXPECT_NE(problems.front().reason.find("declare it as template <int BLOCK_SIZE> __global__ void "
                                         "MatrixMulCUDA(float*, float*, float*, int, int)"),
            std::string::npos)
    << problems.front().reason;
}

TEST(CodeCheck, APlainKernelThatBecomesATemplateIsMissing) {
  const auto contract = contract_of(naive_kernel, "transposeNaive");
  const auto problems = check_code("template <int T> " + naive_kernel, "code", contract);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.front().fault, reply_fault::missing_entry);
  EXPECT_NE(problems.front().reason.find("is a template (template <int T>), but the problem's kernel is not"),
            std::string::npos)
    << problems.front().reason;
}

TEST(CodeCheck, ATemplateKernelWithChangedParameterTypesIsAChangedSignature) {
  const auto contract = contract_of(matmul_kernel, "MatrixMulCUDA<32>");
  const auto problems = check_code(replaced(matmul_kernel, "int wB", "long wB"), "code", contract);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.front().fault, reply_fault::changed_signature);
  EXPECT_NE(problems.front().reason.find("parameter 5 is 'long', must be 'int'"), std::string::npos)
    << problems.front().reason;
}

TEST(CodeCheck, AnOverloadBesideTheEntryIsNotTakenForIt) {
  const auto contract = contract_of(naive_kernel, "transposeNaive");
  const std::string with_overload = "__global__ void transposeNaive(double* odata) { odata[0] = 1.0; }\n" + naive_kernel;
  EXPECT_TRUE(check_code(with_overload, "code", contract).empty());
}

TEST(CodeCheck, AnExtraParameterIsAChangedSignature) {
  const auto problem = only_problem(edited("int n)", "int n, float alpha)"), reply_fault::changed_signature);
  EXPECT_NE(problem.reason.find("4 parameters, the problem passes 3"), std::string::npos)
    << problem.reason;
}

TEST(CodeCheck, AChangedTypeNamesItsParameterButNamesMayDiffer) {
  const auto problem = only_problem(edited("int n)", "long count)"), reply_fault::changed_signature);
  EXPECT_NE(problem.reason.find("parameter 3 is 'long', must be 'int'"), std::string::npos)
    << problem.reason;
  EXPECT_TRUE(check(edited("const float* __restrict__ x", "float const *input")).empty());
}

TEST(CodeCheck, HostCodeIsRefusedOncePerConstruct) {
  const std::string host = scale_kernel +
                           "#include <iostream>\n"
                           "int main() {\n"
                           "  float* d; cudaMalloc(&d, 4); cudaStream_t s; cudaEventRecord(0);\n"
                           "  auto t = std::chrono::steady_clock::now();\n"
                           "  scale<<<1, 1>>>(d, d, 1);\n}\n";
  const auto problems = check(host);
  ASSERT_EQ(problems.size(), max_problems_per_fault + 1) << "6 constructs, capped at 3";
  for (const auto& problem : problems)
    EXPECT_EQ(problem.fault, reply_fault::host_code) << problem.reason;
  EXPECT_NE(problems[0].reason.find("'main('"), std::string::npos) << problems[0].reason;
  EXPECT_EQ(problems[0].where, "variants[0].code line 8 column 5");
}

TEST(CodeCheck, HostHeadersAreRefusedButDeviceHeadersAreNot) {
  for (const std::string header : {"<cstdio>", "<cuda_runtime.h>", "<vector>", "\"cuda.h\""}) {
    const auto problem = only_problem("#include " + header + "\n" + scale_kernel, reply_fault::host_code);
    EXPECT_EQ(problem.where, "variants[0].code line 1 column 11") << header;
  }
  EXPECT_TRUE(check("#include <cuda_fp16.h>\n#include \"tile.cuh\"\n" + scale_kernel).empty());
}

TEST(CodeCheck, HostNamesInCommentsAndStringsAreNotHostCode) {
  const std::string code = "// no cudaMalloc, no <<< >>>, no int main() here\n"
                           "__device__ void note() { printf(\"cudaMemcpy <<<\\n\"); }\n" +
                           scale_kernel;
  EXPECT_TRUE(check(code).empty()) << check(code).front().reason;
}

// Issue 22: libstdc++'s std::regex recursed once per character, and "// same" followed by 60,000
// spaces overflowed the coordinator's stack. The checks now scan words in one pass.
TEST(CodeCheck, ACommentOf60000SpacesIsCheckedWithoutRecursion) {
  const std::string spaces(60'000, ' ');
  EXPECT_TRUE(check("// same" + spaces + "\n" + scale_kernel).empty());
  const auto problem = only_problem(edited("y[i] = 2.0f * x[i];", "// same" + spaces + "as before"),
                                    reply_fault::elided_code);
  EXPECT_NE(problem.reason.find("('same as before')"), std::string::npos)
    << "the marker quoted with its spaces as one: " << problem.reason.substr(0, 200);
  EXPECT_LT(problem.reason.size(), 400u);
  EXPECT_TRUE(check("   " + spaces + "#" + spaces + "include " + spaces + "<cuda_fp16.h>\n" + scale_kernel).empty());
  const auto header = only_problem(spaces + "#" + spaces + "include <vector>\n" + scale_kernel, reply_fault::host_code);
  EXPECT_EQ(header.where, "variants[0].code line 1 column " + std::to_string(2 * spaces.size() + 11));
  const auto host = check("__device__ int f() { return std" + spaces + "::" + spaces + "cout; }\n" + scale_kernel);
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host.front().fault, reply_fault::host_code);
}

TEST(CodeCheck, TenMegabyteCodesOfEveryShapeAreCheckedInLinearTime) {
  const std::size_t ten_mb = 10u << 20;
  const auto started = std::chrono::steady_clock::now();
  auto repeated = [&](const std::string& piece) {
    std::string out;
    out.reserve(ten_mb + piece.size());
    while (out.size() < ten_mb)
      out += piece;
    return out;
  };
  EXPECT_TRUE(check("// " + std::string(ten_mb, ' ') + "\n" + scale_kernel).empty());
  EXPECT_FALSE(check(repeated("a(")).empty()) << "no entry";
  EXPECT_FALSE(check(repeated("a(){") + scale_kernel).empty());
  EXPECT_FALSE(check(repeated("a(){}) ") + scale_kernel).empty());
  EXPECT_TRUE(check(repeated("extern \"C\" {") + scale_kernel).empty()) << "inside unclosed extern \"C\" blocks";
  const auto launches = check(repeated("<<<") + scale_kernel);
  ASSERT_FALSE(launches.empty());
  EXPECT_EQ(launches.back().reason.substr(launches.back().reason.find(" more like")), " more like the 3 above");
  EXPECT_FALSE(check(repeated("/* same as before */") + scale_kernel).empty());
  EXPECT_FALSE(check(repeated(" ... ") + scale_kernel).empty());
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_LT(elapsed, std::chrono::seconds{60}) << "linear passes; a quadratic one would take hours";
}

TEST(CodeCheck, ElisionMarkersKeepTheirMeaningAsWords) {
  for (const std::string comment : {"// same as beforehand", "// the rest of the code", "// FIXME later",
                                    "// implement this", "// your code goes here", "// as in the previous",
                                    "// for brevity"})
    EXPECT_EQ(only_problem(edited("y[i] = 2.0f * x[i];", comment), reply_fault::elided_code).fault,
              reply_fault::elided_code)
      << comment;
  for (const std::string comment : {"// todos", "// unchangedness", "// same-as before", "// fill inside",
                                    "// rest_of the code", "// the codes here"})
    EXPECT_TRUE(check(edited("// y = 2 x", comment)).empty()) << comment;
}

} // namespace
} // namespace warpforge::llm
