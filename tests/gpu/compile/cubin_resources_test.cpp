#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/toolchain.hpp"

#include "compile_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

using namespace warpforge::gpu;
namespace fs = std::filesystem;

namespace {

// Five kernels built to differ in one resource each.
constexpr const char* resource_kernels = R"(
extern "C" __global__ void light(float* out) { out[threadIdx.x] = 1.0f; }

// Many live accumulators: a high register count.
extern "C" __global__ void register_heavy(const float* in, float* out, int n) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = in[i * n + threadIdx.x];
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + 7) % 48] + in[j];
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 48; ++i) s += acc[i] * (i + 1);
  out[threadIdx.x] = s;
}

// Same work squeezed into 32 registers (1024 threads x 2 blocks per SM): spills.
extern "C" __global__ void __launch_bounds__(1024, 2) spilling(const float* in, float* out, int n) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[i * n + threadIdx.x];
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = acc[i] * acc[(i + 1) % 64] + 1.0f;
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i];
  out[threadIdx.x] = s;
}

// 400 bytes of static shared memory, at most 256 threads.
extern "C" __global__ void __launch_bounds__(256) small_tile(float* out) {
  __shared__ float tile[100];
  tile[threadIdx.x % 100] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[99 - threadIdx.x % 100];
}

// 8000 bytes of static shared memory, at most 128 threads.
extern "C" __global__ void __launch_bounds__(128) big_tile(float* out) {
  __shared__ double tile[1000];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = static_cast<float>(tile[999 - threadIdx.x]);
}
)";

// What ptxas -v says about one function.
struct ptxas_report {
  std::uint32_t registers = 0;
  std::uint64_t stack_frame_bytes = 0;
  std::uint64_t spill_store_bytes = 0;
  std::uint64_t smem_bytes = 0;
  std::uint32_t barriers = 0;
};

std::uint64_t number(const std::string& line, const std::regex& pattern) {
  std::smatch match;
  return std::regex_search(line, match, pattern) ? std::stoull(match[1].str()) : 0;
}

// Parses "Compiling entry function 'k'", "N bytes stack frame, M bytes spill stores",
// "Used N registers, used B barriers, S bytes smem" per function.
std::map<std::string, ptxas_report> parse_ptxas_verbose(const std::string& text) {
  const std::regex entry(R"(Compiling entry function '([^']+)')");
  const std::regex registers(R"(Used (\d+) registers)");
  const std::regex barriers(R"(used (\d+) barriers)");
  const std::regex smem(R"((\d+) bytes smem)");
  const std::regex frame(R"((\d+) bytes stack frame)");
  const std::regex spills(R"((\d+) bytes spill stores)");
  std::map<std::string, ptxas_report> reports;
  std::string current;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, entry)) {
      current = match[1].str();
      reports[current];
      continue;
    }
    if (current.empty())
      continue;
    auto& report = reports[current];
    if (line.find("stack frame") != std::string::npos) {
      report.stack_frame_bytes = number(line, frame);
      report.spill_store_bytes = number(line, spills);
    } else if (line.find("Used ") != std::string::npos) {
      report.registers = static_cast<std::uint32_t>(number(line, registers));
      report.barriers = static_cast<std::uint32_t>(number(line, barriers));
      report.smem_bytes = number(line, smem);
    }
  }
  return reports;
}

std::string run_ptxas_verbose(const std::string& ptx, const std::string& arch) {
  const auto ptxas = probe_toolchain().find(cuda_tool::ptxas).path;
  if (!ptxas)
    return {};
  test::scratch_dir dir;
  const auto ptx_path = dir.path / "kernels.ptx";
  std::ofstream(ptx_path) << ptx;
  const auto log_path = dir.path / "ptxas.txt";
  const std::string command = ptxas->string() + " -v -arch=" + arch + " -o " +
                              (dir.path / "out.cubin").string() + " " + ptx_path.string() +
                              " > " + log_path.string() + " 2>&1";
  if (std::system(command.c_str()) != 0)
    return {};
  std::ostringstream text;
  text << std::ifstream(log_path).rdbuf();
  return text.str();
}

class cubin_resources : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    compile_request request;
    request.source = resource_kernels;
    request.source_name = "resources.cu";
    request.entry = "light";
    request.arch = "sm_90";
    auto result = compile_kernel(request);
    ASSERT_TRUE(result) << result.error().log;
    compiled_ = new compiled_kernel(std::move(*result));
  }
  static void TearDownTestSuite() {
    delete compiled_;
    compiled_ = nullptr;
  }
  static compiled_kernel* compiled_;
};

compiled_kernel* cubin_resources::compiled_ = nullptr;

const kernel_resources& find(const std::vector<kernel_resources>& all, const std::string& name) {
  for (const auto& k : all)
    if (k.name == name)
      return k;
  throw std::runtime_error("no kernel " + name);
}

} // namespace

TEST_F(cubin_resources, kernel_entries_lists_every_kernel_of_the_module) {
  ASSERT_NE(compiled_, nullptr);
  auto entries = kernel_entries(compiled_->cubin);
  ASSERT_TRUE(entries) << entries.error().detail;
  std::sort(entries->begin(), entries->end());
  EXPECT_EQ(*entries, (std::vector<std::string>{"big_tile", "light", "register_heavy", "small_tile",
                                                "spilling"}));
}

TEST_F(cubin_resources, the_elf_parse_equals_ptxas_verbose_for_every_kernel) {
  ASSERT_NE(compiled_, nullptr);
  const auto ptxas_text = run_ptxas_verbose(compiled_->ptx, compiled_->arch);
  if (ptxas_text.empty())
    GTEST_SKIP() << "ptxas not found or failed";
  const auto reports = parse_ptxas_verbose(ptxas_text);
  auto resources = read_kernel_resources(compiled_->cubin);
  ASSERT_TRUE(resources) << resources.error().detail;
  ASSERT_EQ(resources->size(), reports.size()) << ptxas_text;
  for (const auto& kernel : *resources) {
    SCOPED_TRACE(kernel.name);
    ASSERT_TRUE(reports.contains(kernel.name)) << ptxas_text;
    const auto& report = reports.at(kernel.name);
    EXPECT_EQ(kernel.registers, report.registers);
    EXPECT_EQ(kernel.local_bytes, report.stack_frame_bytes);
    EXPECT_EQ(kernel.static_shared_bytes, report.smem_bytes);
    EXPECT_EQ(kernel.barriers, report.barriers);
  }
  // The kernels differ the way they were built to.
  const auto& light = find(*resources, "light");
  const auto& heavy = find(*resources, "register_heavy");
  const auto& spilling = find(*resources, "spilling");
  EXPECT_GT(heavy.registers, light.registers + 32);
  EXPECT_LE(spilling.registers, 32u);
  EXPECT_GT(reports.at("spilling").spill_store_bytes, 0u);
  EXPECT_GT(spilling.local_bytes, 0u);
  EXPECT_EQ(light.local_bytes, 0u);
}

TEST_F(cubin_resources, static_shared_memory_and_launch_bounds_are_the_declared_values) {
  ASSERT_NE(compiled_, nullptr);
  auto resources = read_kernel_resources(compiled_->cubin);
  ASSERT_TRUE(resources) << resources.error().detail;
  EXPECT_EQ(find(*resources, "small_tile").static_shared_bytes, 400u);
  EXPECT_EQ(find(*resources, "big_tile").static_shared_bytes, 8000u);
  EXPECT_EQ(find(*resources, "light").static_shared_bytes, 0u);
  EXPECT_EQ(find(*resources, "small_tile").max_threads_per_block, 256u);
  EXPECT_EQ(find(*resources, "big_tile").max_threads_per_block, 128u);
  EXPECT_EQ(find(*resources, "spilling").max_threads_per_block, 1024u);
  EXPECT_EQ(find(*resources, "light").max_threads_per_block, 0u) << "no bound declared";
  EXPECT_EQ(find(*resources, "light").param_bytes, 8u) << "one pointer";
  EXPECT_EQ(find(*resources, "register_heavy").param_bytes, 20u) << "two pointers and an int";
}

TEST_F(cubin_resources, one_kernel_by_name_and_an_unknown_name_lists_the_kernels) {
  ASSERT_NE(compiled_, nullptr);
  auto small = read_kernel_resources(compiled_->cubin, "small_tile");
  ASSERT_TRUE(small) << small.error().detail;
  EXPECT_EQ(small->static_shared_bytes, 400u);
  auto missing = read_kernel_resources(compiled_->cubin, "nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().detail.find("small_tile"), std::string::npos);
}

TEST_F(cubin_resources, every_truncation_of_a_cubin_is_an_error) {
  ASSERT_NE(compiled_, nullptr);
  const auto& cubin = compiled_->cubin;
  for (std::size_t size = 0; size < cubin.size(); size += 61) {
    std::span<const std::uint8_t> prefix(cubin.data(), size);
    EXPECT_FALSE(read_kernel_resources(prefix)) << "prefix of " << size << " bytes";
    EXPECT_FALSE(kernel_entries(prefix)) << "prefix of " << size << " bytes";
  }
}

TEST_F(cubin_resources, garbage_and_corrupted_cubins_never_crash_the_reader) {
  ASSERT_NE(compiled_, nullptr);
  const std::string text = "this is not an ELF file at all, just text";
  std::vector<std::uint8_t> garbage(text.begin(), text.end());
  auto result = read_kernel_resources(garbage);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().detail.find("not an ELF"), std::string::npos);

  std::mt19937 random(12345); // fixed seed: the same corruptions every run
  for (int round = 0; round < 2000; ++round) {
    auto corrupted = compiled_->cubin;
    for (int flip = 0; flip < 8; ++flip)
      corrupted[random() % corrupted.size()] = static_cast<std::uint8_t>(random());
    auto parsed = read_kernel_resources(corrupted); // a value or an error, never a crash
    (void)parsed;
  }
  // Header fields pointing far outside the file.
  auto bad_offsets = compiled_->cubin;
  for (std::size_t i = 0x28; i < 0x30; ++i)
    bad_offsets[i] = 0xff;
  EXPECT_FALSE(read_kernel_resources(bad_offsets));
}
