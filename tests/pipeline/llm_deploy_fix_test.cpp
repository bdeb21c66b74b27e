// The deploy build-fix against a loopback server speaking the OpenAI-compatible wire format
// (tests/llm/support, tests/llm/chat/scripted_provider): the client is the one the deployer makes
// (model_for), the replies are scripted test fixtures written by hand, not a model's answers.

#include "pipeline/llm/deploy_fix.hpp"

#include "foundation/json/writer.hpp"
#include "pipeline/llm/model.hpp"
#include "tests/llm/chat/scripted_provider.hpp"

#include "tests/llm/support/variant_envelope.hpp"

#include <gtest/gtest.h>

#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;
using llm::testing::connection;
using llm::testing::in_order;
using llm::testing::loopback_server;

const fs::path transpose = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";

// What a deploy wrote: the champion's guarded define, then its kernel; `marker` on one line.
std::string kernel_text(const std::string& marker) {
  return "#ifndef TILE\n#define TILE 32\n#endif\n"
         "// " + marker + "\n"
         "extern \"C\" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {\n"
         "  const int c = blockIdx.x * TILE + threadIdx.x;\n"
         "  const int r = blockIdx.y * TILE + threadIdx.y;\n"
         "  if (r < rows && c < cols)\n"
         "    out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];\n"
         "}\n";
}

std::string envelope_with(const std::string& code) {
  return llm::testing::one_variant_envelope(code, "the build names an unknown identifier; removed");
}

std::string read_text(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class DeployFixTest : public ::testing::Test {
protected:
  void SetUp() override {
    run_dir = fs::temp_directory_path() / ("wf-deploy-fix-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(run_dir);
    fs::create_directories(run_dir);
  }
  void TearDown() override { fs::remove_all(run_dir); }

  deploy_fixer fixer_for(const loopback_server& server) const {
    deploy_fix_setup setup;
    setup.llm.provider = config::llm_provider::openai;
    setup.llm.model = "test-model";
    setup.llm.base_url = server.base_url() + "/v1";
    setup.llm.api_key_env = ""; // a local server: no key
    setup.llm.max_attempts = 1;
    auto model = model_for(setup.llm);
    EXPECT_TRUE(model) << (model ? "" : model.error());
    setup.model = *model;
    setup.run_dir = run_dir;
    setup.job = "transpose";
    setup.problem_path = transpose;
    setup.build_command = "cmake --build build";
    setup.target_file = "src/transpose_kernel.cuh";
    setup.region = "transpose";
    setup.transcripts = deploy_fix_folder(run_dir, "transpose", "20261125T101010Z");
    auto fixer = make_deploy_fixer(setup);
    EXPECT_TRUE(fixer) << (fixer ? "" : fixer.error());
    return *fixer;
  }

  fs::path run_dir;
};

const std::string build_log = "[1/2] Building CUDA object transpose_launch.cu.o\n"
                              "src/transpose_kernel.cuh(19): error: identifier \"BROKEN_BUILD\" is undefined\n"
                              "1 error detected in the compilation of \"transpose_launch.cu\".\n";

TEST_F(DeployFixTest, a_build_error_goes_to_the_model_and_its_corrected_kernel_comes_back) {
  const auto corrected = kernel_text("fixed: no undefined identifier");
  loopback_server server{in_order({[&](connection& c) { llm::scripted::openai_reply(c, envelope_with(corrected)); }})};
  auto fixer = fixer_for(server);
  auto fixed = fixer.fix(build_log, kernel_text("BROKEN_BUILD;"));
  ASSERT_TRUE(fixed) << (fixer.log->notes.empty() ? "" : fixer.log->notes.front());
  EXPECT_EQ(*fixed, corrected);
  // What the model was told: the build's error, the written text, the kernel's contract.
  ASSERT_EQ(server.request_count(), 1u);
  simdjson::dom::parser parser;
  auto body = parser.parse(server.requests().front().body);
  ASSERT_FALSE(body.error());
  std::string prompt;
  for (auto m : body["messages"].get_array())
    prompt += std::string{m["content"].get_string().value()} + "\n";
  EXPECT_NE(prompt.find("identifier \"BROKEN_BUILD\" is undefined"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("// BROKEN_BUILD;"), std::string::npos);
  EXPECT_NE(prompt.find("the region `transpose` of src/transpose_kernel.cuh"), std::string::npos);
  EXPECT_NE(prompt.find("`cmake --build build` failed"), std::string::npos);
  EXPECT_NE(prompt.find("void transpose(const float*, float*, int, int)"), std::string::npos);
  // Recorded and accounted like the proposer's calls.
  ASSERT_EQ(fixer.log->calls.size(), 1u);
  EXPECT_EQ(fixer.log->calls[0].purpose, "fix_compile");
  EXPECT_EQ(fixer.log->calls[0].error, std::nullopt);
  EXPECT_EQ(outcome_word(fixer.log->calls[0]), "ok");
  EXPECT_EQ(fixer.log->calls[0].output_tokens, 15);
  EXPECT_EQ(fixer.log->calls[0].transcript, "llm/transpose/deploy-fix/20261125T101010Z/01-fix_compile.json");
  EXPECT_NE(read_text(run_dir / fixer.log->calls[0].transcript).find("BROKEN_BUILD"), std::string::npos);
  EXPECT_EQ(fixer.log->corrections, 1);
  EXPECT_TRUE(fixer.log->notes.empty());
}

TEST_F(DeployFixTest, a_reply_without_code_is_re_asked_then_gives_none_with_the_reason) {
  const auto prose = [](connection& c) { llm::scripted::openai_reply(c, "Remove the BROKEN_BUILD line and rebuild."); };
  loopback_server server{in_order({prose, prose, prose})}; // the ask and its two re-asks
  auto fixer = fixer_for(server);
  auto fixed = fixer.fix(build_log, kernel_text("BROKEN_BUILD;"));
  EXPECT_FALSE(fixed);
  EXPECT_EQ(server.request_count(), 3u);
  ASSERT_EQ(fixer.log->calls.size(), 3u);
  EXPECT_EQ(fixer.log->calls[1].purpose, "reask");
  EXPECT_EQ(fixer.log->calls[2].transcript, "llm/transpose/deploy-fix/20261125T101010Z/03-reask.json");
  ASSERT_EQ(fixer.log->notes.size(), 1u);
  EXPECT_NE(fixer.log->notes[0].find("no valid reply after 2 re-ask(s)"), std::string::npos) << fixer.log->notes[0];
  EXPECT_EQ(fixer.log->corrections, 0);
}

// The project's compiler would quote the included file's lines into the build output that goes
// back to the model (issue 22): a correction naming a host file is not written.
TEST_F(DeployFixTest, a_correction_that_includes_a_host_file_is_not_written) {
  const auto host_file = run_dir / "host-file.txt";
  std::ofstream{host_file} << "WF_HOST_SECRET_deploy\n";
  const auto sneaky = "#\\\ninclude \"" + host_file.string() + "\"\n" + kernel_text("fixed");
  loopback_server server{in_order({[&](connection& c) { llm::scripted::openai_reply(c, envelope_with(sneaky)); }})};
  auto fixer = fixer_for(server);
  EXPECT_FALSE(fixer.fix(build_log, kernel_text("BROKEN_BUILD;")));
  ASSERT_EQ(fixer.log->notes.size(), 1u);
  EXPECT_NE(fixer.log->notes[0].find("may not include: line 1 column 1: #include \"" + host_file.string()),
            std::string::npos)
    << fixer.log->notes[0];
  EXPECT_EQ(fixer.log->corrections, 0);
}

TEST_F(DeployFixTest, a_correction_that_changes_the_signature_is_re_asked_and_the_valid_one_kept) {
  auto changed = kernel_text("fixed");
  changed.replace(changed.find("int rows, int cols"), 18, "long rows, int cols");
  const auto corrected = kernel_text("fixed");
  loopback_server server{in_order({[&](connection& c) { llm::scripted::openai_reply(c, envelope_with(changed)); },
                                   [&](connection& c) { llm::scripted::openai_reply(c, envelope_with(corrected)); }})};
  auto fixer = fixer_for(server);
  auto fixed = fixer.fix(build_log, kernel_text("BROKEN_BUILD;"));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(*fixed, corrected);
  ASSERT_EQ(server.request_count(), 2u);
  EXPECT_NE(server.requests()[1].body.find("signature"), std::string::npos) << "the re-ask names the problem";
}

TEST_F(DeployFixTest, no_model_or_a_problem_that_does_not_load_is_an_error_naming_it) {
  deploy_fix_setup setup;
  setup.problem_path = run_dir / "gone.toml";
  auto none = make_deploy_fixer(setup);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("no model"), std::string::npos) << none.error();
  setup.llm.provider = config::llm_provider::openai;
  setup.llm.base_url = "http://127.0.0.1:9/v1";
  setup.model = *model_for(setup.llm);
  auto gone = make_deploy_fixer(setup);
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().find((run_dir / "gone.toml").string()), std::string::npos) << gone.error();
}

} // namespace
} // namespace warpforge::pipeline
