// C++ and template entries (issue 29): NVRTC's name expression gives each its lowered name, the
// CUBIN holds that symbol, and entry_symbol finds it again from the entry alone (what the runner,
// the SASS check and ncu do).

#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/entry_name.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace warpforge;
using namespace warpforge::gpu;

namespace {

// Kernels as the CUDA samples write them: C++ linkage, templates, overloads, several per file.
constexpr const char* samples_source = R"(
#ifndef TILE
#define TILE 8
#endif
__global__ void transposeNaive(float* odata, float* idata, int width, int height) {
  odata[threadIdx.x * height] = idata[threadIdx.x];
}
__global__ void copySharedMem(float* odata, float* idata, int width, int height) {
  __shared__ float tile[TILE];
  tile[threadIdx.x % TILE] = idata[threadIdx.x];
  __syncthreads();
  odata[threadIdx.x] = tile[threadIdx.x % TILE];
}
template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float* C, float* A, float* B, int wA, int wB) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  As[threadIdx.y][threadIdx.x] = A[threadIdx.x];
  __syncthreads();
  C[threadIdx.x] = As[threadIdx.x][threadIdx.y] * B[0];
}
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce7(const T* __restrict__ g_idata, T* __restrict__ g_odata, unsigned int n) {
  T sum = g_idata[threadIdx.x];
  if (nIsPow2 && blockSize >= 64) sum += g_idata[threadIdx.x + 32];
  g_odata[blockIdx.x] = sum;
}
__global__ void scale(float* x) { x[0] *= 2.0f; }
__global__ void scale(int* x) { x[0] *= 2; }
namespace samples { template <typename T> __global__ void fill(T* x) { x[threadIdx.x] = T(1); } }
)";

compile_request samples_request(std::string entry) {
  compile_request request;
  request.source = samples_source;
  request.source_name = "samples.cu";
  request.entry = std::move(entry);
  return request;
}

std::vector<std::string> kernels_of(const compiled_kernel& kernel) {
  auto kernels = kernel_entries(kernel.cubin);
  return kernels ? *kernels : std::vector<std::string>{};
}

} // namespace

TEST(entry_names, a_cpp_function_a_template_and_an_overload_each_compile_to_their_lowered_name_in_the_cubin) {
  struct expectation {
    std::string entry;
    std::string symbol;    // the Itanium mangling, as nvcc and the samples' binaries have it
    std::string demangled; // what cuobjdump, ncu and CUPTI print
  };
  const std::vector<expectation> cases{
      {"transposeNaive", "_Z14transposeNaivePfS_ii", "transposeNaive(float*, float*, int, int)"},
      {"MatrixMulCUDA<32>", "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii",
       "void MatrixMulCUDA<32>(float*, float*, float*, int, int)"},
      {"reduce7<int, 256u, true>", "_Z7reduce7IiLj256ELb1EEvPKT_PS0_j",
       "void reduce7<int, 256u, true>(int const*, int*, unsigned int)"},
      {"reduce7<int,256,true>", "_Z7reduce7IiLj256ELb1EEvPKT_PS0_j",
       "void reduce7<int, 256u, true>(int const*, int*, unsigned int)"},
      {"scale(int*)", "_Z5scalePi", "scale(int*)"},
      {"samples::fill<float>", "_ZN7samples4fillIfEEvPT_", "void samples::fill<float>(float*)"},
  };
  for (const auto& c : cases) {
    const auto result = compile_kernel(samples_request(c.entry));
    ASSERT_TRUE(result) << c.entry << ": " << result.error().log;
    EXPECT_EQ(result->entry, c.entry);
    EXPECT_EQ(result->symbol, c.symbol) << c.entry;
    const auto kernels = kernels_of(*result);
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), c.symbol), kernels.end()) << c.entry << " in the CUBIN";
    EXPECT_EQ(demangled(c.symbol), c.demangled);
    const auto found = entry_symbol_in_cubin(result->cubin, c.entry);
    ASSERT_TRUE(found) << found.error();
    EXPECT_EQ(*found, c.symbol) << "found again from the entry alone";
    const auto itself = entry_symbol_in_cubin(result->cubin, c.symbol);
    ASSERT_TRUE(itself) << itself.error();
    EXPECT_EQ(*itself, c.symbol) << "a symbol finds itself";
  }
}

TEST(entry_names, the_module_holds_every_plain_kernel_of_the_file_and_only_the_named_instantiation) {
  const auto result = compile_kernel(samples_request("MatrixMulCUDA<16>"));
  ASSERT_TRUE(result) << result.error().log;
  auto kernels = kernels_of(*result);
  std::sort(kernels.begin(), kernels.end());
  EXPECT_EQ(kernels, (std::vector<std::string>{"_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii", "_Z13copySharedMemPfS_ii",
                                               "_Z14transposeNaivePfS_ii", "_Z5scalePf", "_Z5scalePi"}));
  // The runner's lookup picks the entry's own kernel among them, and names them when it cannot.
  const auto copy = entry_symbol(kernels, "copySharedMem");
  ASSERT_TRUE(copy) << copy.error();
  EXPECT_EQ(*copy, "_Z13copySharedMemPfS_ii");
  const auto other = entry_symbol(kernels, "MatrixMulCUDA<32>");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().find("entry 'MatrixMulCUDA<32>' is not a kernel of the module"), std::string::npos)
      << other.error();
  EXPECT_NE(other.error().find("void MatrixMulCUDA<16>(float*, float*, float*, int, int)"), std::string::npos)
      << other.error();
}

TEST(entry_names, an_overloaded_name_without_its_parameters_is_a_compile_error_saying_which_is_meant) {
  const auto result = compile_kernel(samples_request("scale"));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("overloaded function \"scale\""), std::string::npos) << result.error().log;
  EXPECT_NE(result.error().log.find("entry 'scale' names no __global__ function of samples.cu"), std::string::npos)
      << result.error().log;
  const std::vector<std::string> kernels{"_Z5scalePf", "_Z5scalePi"};
  const auto ambiguous = entry_symbol(kernels, "scale");
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().find("names 2 kernels of the module (scale(float*), scale(int*))"), std::string::npos)
      << ambiguous.error();
}

TEST(entry_names, a_template_that_does_not_instantiate_is_a_compile_error_naming_the_entry_and_the_file) {
  auto request = samples_request("odd_only<3>");
  request.source += "template <int N> struct even { static_assert(N % 2 == 0, \"N must be even\"); };\n"
                    "template <int N> __global__ void odd_only(float* x) { even<N> e; (void)e; x[0] = N; }\n";
  const auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("N must be even"), std::string::npos) << result.error().log;
  EXPECT_NE(result.error().log.find("while instantiating entry 'odd_only<3>' of samples.cu"), std::string::npos)
      << result.error().log;

  const auto missing = compile_kernel(samples_request("MatrixMulCUDA<float>"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().log.find("entry 'MatrixMulCUDA<float>' names no __global__ function of samples.cu"),
            std::string::npos)
      << missing.error().log;
}

TEST(entry_names, a_tunable_define_in_the_template_arguments_must_be_written_as_its_value) {
  // The pipeline writes the entry at its point (config::resolved_problem::entry): MatrixMulCUDA<16>.
  auto request = samples_request("MatrixMulCUDA<16>");
  request.defines = {{"TILE", "16"}};
  const auto at_point = compile_kernel(request);
  ASSERT_TRUE(at_point) << at_point.error().log;
  EXPECT_EQ(at_point->symbol, "_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii");
  // A macro left in the entry is expanded by NVRTC, but the runner could not find the kernel from
  // the entry as written: refused at compile time with the spelling that works.
  request.entry = "MatrixMulCUDA<TILE>";
  const auto macro = compile_kernel(request);
  ASSERT_FALSE(macro);
  EXPECT_NE(macro.error().log.find("entry 'MatrixMulCUDA<TILE>' compiles to void MatrixMulCUDA<16>(float*, float*, "
                                   "float*, int, int), which the runner cannot find from the entry as written"),
            std::string::npos)
      << macro.error().log;
  EXPECT_NE(macro.error().log.find("write entry = \"MatrixMulCUDA<16>\""), std::string::npos) << macro.error().log;
}

TEST(entry_names, an_entry_that_is_not_a_name_never_reaches_nvrtc) {
  for (const std::string entry : {"k;\n#include \"/etc/passwd\"", "k<1", "", "1k"}) {
    const auto result = compile_kernel(samples_request(entry));
    ASSERT_FALSE(result) << entry;
    EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
    EXPECT_NE(result.error().log.find("samples.cu: entry '" + entry + "': "), std::string::npos)
        << result.error().log;
  }
}

TEST(entry_names, names_kernel_matches_an_observed_launch_by_its_symbol_or_demangled_name) {
  const auto entry = config::parse_kernel_entry("reduce7<int, 256, true>");
  ASSERT_TRUE(entry) << entry.error();
  EXPECT_TRUE(names_kernel(*entry, "_Z7reduce7IiLj256ELb1EEvPKT_PS0_j"));
  EXPECT_TRUE(names_kernel(*entry, "void reduce7<int, 256u, true>(int const*, int*, unsigned int)"));
  EXPECT_FALSE(names_kernel(*entry, "_Z7reduce7IiLj128ELb1EEvPKT_PS0_j")) << "another instantiation";
  EXPECT_FALSE(names_kernel(*entry, "_Z7reduce6IiLj256ELb1EEvPKT_PS0_j")) << "another template";
  const auto plain = config::parse_kernel_entry("transposeNaive");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(names_kernel(*plain, "_Z14transposeNaivePfS_ii"));
  EXPECT_FALSE(names_kernel(*plain, "_Z14transposeCoarsePfS_ii"));
  const auto c_name = config::parse_kernel_entry("vector_add");
  ASSERT_TRUE(c_name);
  EXPECT_TRUE(names_kernel(*c_name, "vector_add"));

  const auto drafted = entry_of_symbol("_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii");
  ASSERT_TRUE(drafted);
  EXPECT_EQ(drafted->name, "MatrixMulCUDA");
  EXPECT_EQ(drafted->template_arguments, (std::vector<std::string>{"32"}));
  EXPECT_EQ(drafted->parameters, (std::vector<std::string>{"float*", "float*", "float*", "int", "int"}));
}

TEST(entry_names, the_name_expression_picks_an_overload_by_its_parameter_types) {
  const auto entry = config::parse_kernel_entry("scale(const float *)");
  ASSERT_TRUE(entry);
  EXPECT_EQ(name_expression(*entry), "static_cast<void(*)(float const*)>(scale)");
  const auto plain = config::parse_kernel_entry("reduce7<int, 256u, true>");
  ASSERT_TRUE(plain);
  EXPECT_EQ(name_expression(*plain), "reduce7<int, 256, true>");
}
