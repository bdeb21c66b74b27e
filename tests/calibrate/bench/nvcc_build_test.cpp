// Each built-in benchmark, built as the engine builds it (gpu/compile's program compiler: nvcc,
// its arch, C++17, -lineinfo), then, where a cuobjdump that reads this toolkit's binaries is
// present, disassembled and put through the SASS gate. Cases skip without nvcc (or without such
// a cuobjdump, for the gate).
#include "calibrate/bench/registry.hpp"
#include "calibrate/bench/sass_gate.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "sass/disassembler.hpp" // tool_search: where cuobjdump may be

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unistd.h>

using namespace warpforge;
using namespace warpforge::calibrate;

namespace {

// One compile cache for the whole suite: the gate cases find the builds of the build cases.
const std::filesystem::path& cache_dir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "wf-bench-XXXXXX").string();
    return std::filesystem::path(::mkdtemp(pattern.data()));
  }();
  return dir;
}

struct remove_cache : ::testing::Environment {
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(cache_dir(), ignored);
  }
};
const auto* const cleanup = ::testing::AddGlobalTestEnvironment(new remove_cache);

// nullopt: no nvcc on this host.
std::optional<gpu::program_result> build(const benchmark& bench) {
  auto compiler = gpu::program_compiler::from_toolchain(gpu::compile_cache(cache_dir()));
  if (!compiler)
    return std::nullopt;
  gpu::compile_request request;
  request.source = std::string(bench.source);
  request.source_name = bench.parameter + ".cu";
  request.arch = bench.arch;
  return compiler->compile(request);
}

std::optional<std::filesystem::path> find_cuobjdump() {
  const auto where = sass::tool_search::from_process();
  std::vector<std::filesystem::path> folders;
  std::stringstream path(where.path.value_or(""));
  for (std::string folder; std::getline(path, folder, ':');)
    folders.emplace_back(folder);
  for (const auto& home : where.cuda_homes)
    folders.push_back(home / "bin");
  for (const auto& folder : folders)
    if (!folder.empty() && ::access((folder / "cuobjdump").c_str(), X_OK) == 0)
      return folder / "cuobjdump";
  return std::nullopt;
}

class built_in_benchmark : public ::testing::TestWithParam<std::string> {
protected:
  const benchmark& bench() const { return *find_benchmark(GetParam()); }
};

// `cuobjdump -sass <file>`'s output, or nullopt when it exits non-zero.
std::optional<std::string> run_cuobjdump(const std::filesystem::path& tool,
                                         const std::filesystem::path& file) {
  const std::string command = "'" + tool.string() + "' -sass '" + file.string() + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return std::nullopt;
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    text.append(buffer, n);
  if (::pclose(pipe) != 0)
    return std::nullopt;
  return text;
}

} // namespace

TEST_P(built_in_benchmark, builds_with_nvcc_for_its_arch) {
  auto built = build(bench());
  if (!built)
    GTEST_SKIP() << "no nvcc on this host";
  ASSERT_TRUE(*built) << built->error().log;
  EXPECT_TRUE(std::filesystem::exists((*built)->executable));
}

TEST_P(built_in_benchmark, passes_the_sass_gate_when_built) {
  auto built = build(bench());
  if (!built)
    GTEST_SKIP() << "no nvcc on this host";
  ASSERT_TRUE(*built) << built->error().log;
  const auto cuobjdump = find_cuobjdump();
  if (!cuobjdump)
    GTEST_SKIP() << "no cuobjdump on this host";
  const auto text = run_cuobjdump(*cuobjdump, (*built)->executable);
  if (!text) // e.g. an older toolkit's cuobjdump, which cannot read this nvcc's ELF headers
    GTEST_SKIP() << *cuobjdump << " cannot disassemble what this nvcc built";
  const auto gate = check_sass(*text, bench());
  EXPECT_TRUE(gate.ok) << gate.reason;
}

namespace {
std::vector<std::string> parameters() {
  std::vector<std::string> names;
  for (const auto& bench : built_in_benchmarks())
    names.push_back(bench.parameter);
  return names;
}
} // namespace

INSTANTIATE_TEST_SUITE_P(calibrate_bench, built_in_benchmark, ::testing::ValuesIn(parameters()),
                         [](const auto& test) { return test.param; });
