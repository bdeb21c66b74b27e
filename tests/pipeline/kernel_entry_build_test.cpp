// Issue 29: the build steps with a C++ template entry whose template argument is a tunable (THREADS,
// named unlike the template parameter BLOCK: every tunable is also a -D macro) and
// whose file includes the project's headers: each point is compiled as its own instantiation
// (the entry at the point, the include folders passed), the built kernel carries its lowered
// symbol, and the SASS check is asked for that kernel only, not the file's others.

#include "pipeline/build.hpp"
#include "pipeline/job_setup.hpp"

#include "config/problem_spec.hpp"
#include "config/toml_reader/placed_error.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;

struct template_project {
  fs::path root;
  template_project() {
    std::string pattern = (fs::temp_directory_path() / "wf-entry-XXXXXX").string();
    root = fs::canonical(::mkdtemp(pattern.data()));
    fs::create_directories(root / "include");
    std::ofstream{root / "include" / "scale.h"} << "#pragma once\n#define SCALE 2.0f\n";
    std::ofstream{root / "kernels.cu"}
      << "#include \"scale.h\"\n"
         "__global__ void copy(float* out, const float* in, int n) { if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x]; }\n"
         "template <int BLOCK> __global__ void scaled(float* out, const float* in, int n) {\n"
         "  const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
         "  if (i < n) out[i] = SCALE * in[i];\n"
         "}\n";
    std::ofstream{root / "problem.toml"}
      << "name = \"scaled\"\n[kernel]\nsource = \"kernels.cu\"\nentry = \"scaled<THREADS>\"\ninclude_dirs = [\"include\"]\n"
         "[dims]\nN = 1024\n[[tunables]]\nname = \"THREADS\"\nvalues = [64, 128]\ndefault = 128\n"
         "[[args]]\nname = \"out\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"output\"\n"
         "[[args]]\nname = \"in\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"input\"\n"
         "[[args]]\nname = \"n\"\ndtype = \"i32\"\nvalue = \"N\"\n"
         "[launch]\ngrid = [\"ceil_div(N, THREADS)\"]\nblock = [\"THREADS\"]\n";
  }
  ~template_project() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  template_project(const template_project&) = delete;
  template_project& operator=(const template_project&) = delete;

  job_setup job() const {
    auto spec = config::load_problem(root / "problem.toml");
    if (!spec)
      throw std::runtime_error(toml_reader::to_string(spec.error()));
    auto job = open_job("scaled", root / "problem.toml", std::move(*spec));
    if (!job)
      throw std::runtime_error(job.error());
    return std::move(*job);
  }
};

TEST(KernelEntryBuild, EachPointCompilesItsOwnInstantiationWithTheProjectsHeadersAndChecksOnlyThatKernel) {
  const template_project project;
  const auto job = project.job();
  for (const auto& [block, symbol] : std::vector<std::pair<std::int64_t, std::string>>{
         {64, "_Z6scaledILi64EEvPfPKfi"}, {128, "_Z6scaledILi128EEvPfPKfi"}}) {
    candidate at = job.baseline;
    at.point["THREADS"] = block;
    const auto resolved = resolve_branch(job, at);
    ASSERT_TRUE(resolved) << resolved.error();
    const auto order = compile_order_for(job, at, resolved->front(), {}, "sm_90", project.root / "out");
    EXPECT_EQ(order.request.entry, "scaled<" + std::to_string(block) + ">");
    EXPECT_EQ(order.request.include_dirs, std::vector<std::string>{(project.root / "include").string()});
    const auto kernel = compile(order, gpu::compile_kernel);
    ASSERT_EQ(kernel.outcome, vocabulary::branch_outcome::passed) << kernel.log;
    EXPECT_EQ(kernel.symbol, symbol);
    EXPECT_GT(kernel.compile_s, 0.0) << "NVRTC compiled it (no cache here)";
    EXPECT_GE(kernel.build_s, kernel.compile_s) << "the whole build holds the compile";
    EXPECT_EQ(sass_order_for(kernel, {"tiling_smem"}, project.root / "listing.sass").kernel, symbol)
      << "not copy(), the file's other kernel";
  }
  const auto reference = reference_order_for(job, {}, "sm_90", project.root / "out");
  EXPECT_EQ(reference.request.entry, "scaled<128>") << "the reference runs at the default point";
  EXPECT_EQ(reference.request.include_dirs, std::vector<std::string>{(project.root / "include").string()});
}

} // namespace
} // namespace warpforge::pipeline
