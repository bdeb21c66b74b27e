// Issue 29: kernels as people write them, through the real `warpforge run` (NVRTC, the stand-in
// GPUs of tests/gpu/fake_runner.cpp, SQLite). (a) A template kernel of C++ linkage, beside another
// kernel in its file, named `scaled<THREADS>` with THREADS a tunable (named unlike the template
// parameter BLOCK, which its -DTHREADS=... would otherwise rewrite) and including the
// project's own headers from [kernel] include_dirs: every point compiles, its CUBIN holds that
// point's instantiation under its lowered name, and the campaign ends with measured branches.
// (b) The same project with a header that is a symbolic link to a file outside it: the spec's own
// check passes (the folder is inside), every branch ends compile_error naming the link, and the
// file's contents reach nothing under the run directory. (c) The llm proposer against a loopback
// OpenAI-compatible server on the same project: the prompt declares the entry in its own form (its
// template head, C++ linkage, the instantiation launched), and a scripted variant that keeps the
// template is accepted, compiled to scaled<128> and measured; the replies are hand-written test
// data in the documented envelope, not a model's answers.

#include "foundation/json/writer.hpp"
#include "gpu/compile/cubin_resources.hpp"
#include "tests/apps/cli/campaign_fixture.hpp"
#include "tests/llm/support/loopback_server.hpp"
#include "tests/llm/chat/scripted_provider.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace std::chrono_literals;
using warpforge::llm::testing::connection;
using warpforge::llm::testing::loopback_server;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

/// What the outside file holds: it must appear nowhere under the run directory.
constexpr std::string_view outside_contents = "WF_OUTSIDE_SECRET_81d4";
/// How long a short campaign on the stand-in GPUs may take.
constexpr auto campaign_deadline = 120s;

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class KernelEntries : public campaign_fixture {
protected:
  fs::path project() const { return dir / "app"; }

  // app/: a kernel file with two kernels (one a template), its headers, and the problem spec.
  fs::path write_project() {
    fs::create_directories(project() / "include" / "detail");
    std::ofstream{project() / "include" / "tile.cuh"} << "#pragma once\n#include \"detail/scale.h\"\n";
    std::ofstream{project() / "include" / "detail" / "scale.h"} << "#pragma once\n#define SCALE 2.0f\n";
    std::ofstream{project() / "kernels.cu"}
      << "#include \"tile.cuh\"\n"
         "__global__ void copy(float* out, const float* in, int n) {\n"
         "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = in[i];\n"
         "}\n"
         "template <int BLOCK> __global__ void __launch_bounds__(BLOCK) scaled(float* out, const float* in, int n) {\n"
         "  const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
         "  if (i < n) out[i] = SCALE * in[i];\n"
         "}\n";
    const auto spec = project() / "problem.toml";
    std::ofstream{spec} << "name = \"scaled\"\n"
                           "[kernel]\nsource = \"kernels.cu\"\nentry = \"scaled<THREADS>\"\ninclude_dirs = [\"include\"]\n"
                           "[dims]\nN = 4096\n"
                           "[[tunables]]\nname = \"THREADS\"\nvalues = [64, 128, 256]\ndefault = 128\n"
                           "[[args]]\nname = \"out\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"output\"\n"
                           "[[args]]\nname = \"in\"\ndtype = \"f32\"\ncount = \"N\"\nrole = \"input\"\n"
                           "[[args]]\nname = \"n\"\ndtype = \"i32\"\nvalue = \"N\"\n"
                           "[launch]\ngrid = [\"ceil_div(N, THREADS)\"]\nblock = [\"THREADS\"]\n";
    return spec;
  }

  fs::path write_campaign_of(const fs::path& problem) {
    const auto file = dir / "campaign.toml";
    std::ofstream{file} << "name = \"entries\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" << problem.string() << "\"\n"
                        << "[budget]\niterations = 2\nbranches = 3\npatience = 2\n"
                        << "[proposer]\nkind = \"tune\"\nstrategy = \"exhaustive\"\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  // One iteration of one variant from the model at `base_url`.
  fs::path write_llm_campaign_of(const fs::path& problem, const std::string& base_url) {
    const auto file = dir / "llm.toml";
    std::ofstream{file} << "name = \"entries-llm\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" << problem.string() << "\"\n"
                        << "[budget]\niterations = 1\nbranches = 1\npatience = 1\n"
                        << "[proposer]\nkind = \"llm\"\n"
                        << "[llm]\nprovider = \"openai\"\nmodel = \"scripted\"\nbase_url = \"" << base_url
                        << "\"\napi_key_env = \"\"\njudge = false\nmax_attempts = 1\nmax_fix_tries = 1\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  // The kernels of every CUBIN the run wrote, by file.
  std::vector<std::pair<fs::path, std::vector<std::string>>> cubins() {
    std::vector<std::pair<fs::path, std::vector<std::string>>> out;
    for (const auto& entry : fs::recursive_directory_iterator(run_dir()))
      if (entry.path().extension() == ".cubin") {
        const auto bytes = read_text(entry.path());
        auto kernels = warpforge::gpu::kernel_entries(
          std::span{reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
        out.emplace_back(entry.path(), kernels ? *kernels : std::vector<std::string>{});
      }
    return out;
  }
};

TEST_F(KernelEntries, ATemplateEntryWithATunableAndProjectHeadersCompilesEveryPointAndIsMeasured) {
  const auto campaign = write_campaign_of(write_project());
  const auto pid = start({"run", campaign.string()});
  const auto code = wait_exit_within(pid, campaign_deadline);
  ASSERT_TRUE(code.has_value()) << "still running after " << campaign_deadline.count() << " s";
  EXPECT_EQ(*code, 0) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome = 'compile_error'"), 0) << stderr_text();
  EXPECT_GE(count("SELECT count(*) FROM branches WHERE outcome = 'passed'"), 3) << stderr_text();
  EXPECT_GT(count("SELECT count(*) FROM measurements"), 0);
  // Each branch's CUBIN holds its own point's instantiation (THREADS as the template argument),
  // under its lowered name, beside the file's other kernel.
  std::vector<std::string> instantiations;
  for (const auto& [file, kernels] : cubins()) {
    if (file.filename().string().starts_with("reference"))
      continue;
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), "_Z4copyPfPKfi"), kernels.end()) << file;
    for (const auto& k : kernels)
      if (k.starts_with("_Z6scaledILi"))
        instantiations.push_back(k);
  }
  std::sort(instantiations.begin(), instantiations.end());
  instantiations.erase(std::unique(instantiations.begin(), instantiations.end()), instantiations.end());
  EXPECT_EQ(instantiations, (std::vector<std::string>{"_Z6scaledILi128EEvPfPKfi", "_Z6scaledILi256EEvPfPKfi",
                                                      "_Z6scaledILi64EEvPfPKfi"}));
}

/// The reply: one variant of scaled that stages its input in shared memory, still a template of
/// C++ linkage (its template parameter renamed), including the project's header.
std::string template_variant_reply() {
  const std::string code = "#include \"tile.cuh\"\n"
                           "template <int THREADS_PER_BLOCK>\n"
                           "__global__ void __launch_bounds__(THREADS_PER_BLOCK) scaled(float* out, const float* in, int n) {\n"
                           "  __shared__ float staged[THREADS_PER_BLOCK];\n"
                           "  const int i = blockIdx.x * THREADS_PER_BLOCK + threadIdx.x;\n"
                           "  staged[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
                           "  __syncthreads();\n"
                           "  if (i < n) out[i] = SCALE * staged[threadIdx.x];\n"
                           "}\n";
  warpforge::json::writer w;
  w.begin_object().key("analysis").value("one load and one store per element");
  w.key("variants").begin_array().begin_object();
  w.key("name").value("staged").key("memo").value("stage the input in shared memory");
  w.key("methods").begin_array().value("memory.tiling_smem").end_array();
  w.key("code").value(code).end_object();
  w.end_array().end_object();
  return "```json\n" + std::move(w).str() + "\n```\n";
}

TEST_F(KernelEntries, AModelsVariantOfATemplateEntryKeepsItsFormIsCompiledToItsInstantiationAndMeasured) {
  const auto spec = write_project();
  const auto reply = template_variant_reply();
  loopback_server server{[&](connection& c) { warpforge::llm::scripted::openai_reply(c, reply); }};
  const auto campaign = write_llm_campaign_of(spec, server.base_url() + "/v1");
  const auto pid = start({"run", campaign.string()});
  const auto code = wait_exit_within(pid, campaign_deadline);
  ASSERT_TRUE(code.has_value()) << "still running after " << campaign_deadline.count() << " s";
  EXPECT_EQ(*code, 0) << stderr_text();
  const auto requests = server.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_NE(requests.front().body.find("Entry point: template <int BLOCK> __global__ void scaled(float*, const float*, "
                                       "int), compiled and launched as scaled<128>"),
            std::string::npos)
    << "the prompt declares the entry in its own form";
  EXPECT_EQ(requests.front().body.find("extern \\\"C\\\" __global__"), std::string::npos);
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE purpose = 'reask'"), 0) << "the variant was accepted as it came";
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'branch' AND outcome = 'passed'"), 1) << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM measurements m JOIN branches b ON m.branch_id = b.id WHERE b.kind = 'branch'"), 1);
  bool instantiated = false;
  for (const auto& [file, kernels] : cubins())
    if (!file.filename().string().starts_with("reference"))
      instantiated = instantiated ||
                     std::find(kernels.begin(), kernels.end(), "_Z6scaledILi128EEvPfPKfi") != kernels.end();
  EXPECT_TRUE(instantiated) << "the variant's CUBIN holds scaled<128> under its lowered name";
}

TEST_F(KernelEntries, AProjectHeaderLinkedToAFileOutsideIsRefusedAndItsContentsGoNowhere) {
  const auto spec = write_project();
  fs::create_directories(dir / "outside");
  std::ofstream{dir / "outside" / "scale.h"} << outside_contents << "\n";
  fs::remove(project() / "include" / "detail" / "scale.h");
  fs::create_symlink(dir / "outside" / "scale.h", project() / "include" / "detail" / "scale.h");
  const auto campaign = write_campaign_of(spec);
  const auto pid = start({"run", campaign.string()});
  const auto code = wait_exit_within(pid, campaign_deadline);
  ASSERT_TRUE(code.has_value()) << "still running after " << campaign_deadline.count() << " s";
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome = 'passed'"), 0) << stderr_text();
  EXPECT_GT(count("SELECT count(*) FROM branches WHERE outcome = 'compile_error' AND detail LIKE '%"
                  "include/detail/scale.h, which lies outside the include folders%'"),
            0)
    << stderr_text();
  for (const auto& entry : fs::recursive_directory_iterator(run_dir())) {
    if (entry.is_regular_file()) {
      EXPECT_EQ(read_text(entry.path()).find(outside_contents), std::string::npos) << entry.path();
    }
  }
  EXPECT_EQ(stderr_text().find(outside_contents), std::string::npos);
}

} // namespace
