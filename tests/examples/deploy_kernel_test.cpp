// examples/deploy: the application's kernel header is also the problem's kernel source, so NVRTC
// (what the tuner compiles with) must accept it exactly as the application's nvcc build does, at
// the default and at tuned tunable values; the regressing kernel of the rollback demo too. Both
// hold the one region `warpforge deploy` replaces. CPU only: NVRTC runs without a GPU.
#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace warpforge::gpu;

namespace {

const std::filesystem::path example_dir =
    std::filesystem::path(WARPFORGE_SOURCE_DIR) / "examples" / "deploy";

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

compile_request kernel_request(const std::filesystem::path& file,
                               std::vector<macro_define> defines = {}) {
  compile_request request;
  request.source = read_text(file);
  request.source_name = file.filename().string();
  request.entry = "transpose";
  request.arch = std::string(fallback_arch);
  request.defines = std::move(defines);
  return request;
}

// Compiles with NVRTC and checks the CUBIN exports exactly the entry `transpose`.
void expect_compiles_to_transpose(const compile_request& request) {
  ASSERT_FALSE(request.source.empty()) << request.source_name << " is missing or empty";
  auto result = compile_kernel(request);
  ASSERT_TRUE(result) << request.source_name << ": " << result.error().log;
  auto entries = kernel_entries(result->cubin);
  ASSERT_TRUE(entries) << entries.error().detail;
  EXPECT_EQ(*entries, std::vector<std::string>{"transpose"});
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

} // namespace

TEST(deploy_example_kernel, the_application_header_compiles_with_nvrtc_at_its_defaults) {
  expect_compiles_to_transpose(kernel_request(example_dir / "app/src/transpose_kernel.cuh"));
}

TEST(deploy_example_kernel, the_application_header_compiles_with_nvrtc_as_the_tiled_kernel) {
  expect_compiles_to_transpose(kernel_request(
      example_dir / "app/src/transpose_kernel.cuh",
      {{"USE_SMEM_TILE", "1"}, {"TILE", "16"}, {"BLOCK_ROWS", "16"}, {"PAD", "1"}}));
}

TEST(deploy_example_kernel, the_regressing_kernel_compiles_with_nvrtc) {
  expect_compiles_to_transpose(kernel_request(example_dir / "slow_transpose.cuh"));
}

TEST(deploy_example_kernel, both_files_hold_the_transpose_region_once_begin_before_end) {
  for (const auto& file : {example_dir / "app/src/transpose_kernel.cuh",
                           example_dir / "slow_transpose.cuh"}) {
    SCOPED_TRACE(file.string());
    const std::string text = read_text(file);
    EXPECT_EQ(count_of(text, "// warpforge:begin transpose\n"), 1u);
    EXPECT_EQ(count_of(text, "// warpforge:end transpose\n"), 1u);
    EXPECT_LT(text.find("// warpforge:begin transpose"), text.find("// warpforge:end transpose"));
  }
}

TEST(deploy_example_kernel, the_host_launch_helper_follows_the_region_so_it_sees_deployed_defines) {
  const std::string text = read_text(example_dir / "app/src/transpose_kernel.cuh");
  const auto region_end = text.find("// warpforge:end transpose");
  const auto helper = text.find("transpose_launch_geometry(");
  ASSERT_NE(helper, std::string::npos);
  EXPECT_GT(helper, region_end);
}
