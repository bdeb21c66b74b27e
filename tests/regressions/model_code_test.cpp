// Issue 22, items 2 and 3: what a model's reply can do through the real `warpforge run` (the
// llm proposer against a loopback OpenAI-compatible server, NVRTC, the stand-in GPUs, SQLite).
// (a) Kernels that include a host file through every bypass of the old line-based include check
//     (a line splice, a comment between # and include, a digraph, __has_include, a macro...):
//     each is refused with its reason, and the file's contents reach neither the run directory,
//     the store, nor any later request the model's server receives.
// (b) A reply holding "// same" and 60,000 spaces (which overflowed std::regex's recursion and
//     ended the coordinator with SIGSEGV), then one over max_reply_bytes: both refused, recorded,
//     and the campaign ends normally; (c) a replay of that run's transcripts ends normally too.
// The replies are hand-written test data in the documented envelope, not a model's answers.

#include "llm/reply/parse.hpp"
#include "tests/apps/cli/campaign_fixture.hpp"
#include "tests/llm/support/loopback_server.hpp"
#include "tests/llm/support/variant_envelope.hpp"

#include "tests/llm/chat/scripted_provider.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using warpforge::llm::testing::connection;
using warpforge::llm::testing::loopback_server;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

/// What the host file holds: it must appear nowhere the model or the run can see.
constexpr std::string_view secret_contents = "WF_HOST_SECRET_5c9e2a71";

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The example's own kernel: a valid answer once the include in front of it is removed.
std::string transpose_kernel() { return read_text(WARPFORGE_SOURCE_DIR "/examples/transpose/kernel.cu"); }

class ModelCode : public campaign_fixture {
protected:
  fs::path write_llm_campaign(const std::string& name, const std::string& proposer, const std::string& base_url,
                              const std::string& budget, const std::string& llm_extra) {
    const auto file = dir / (name + ".toml");
    std::ofstream{file} << "name = \"" << name << "\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[budget]\n" << budget << "\n"
                        << "[proposer]\n" << proposer << "\n"
                        << "[llm]\nprovider = \"openai\"\nmodel = \"scripted\"\nbase_url = \"" << base_url << "\"\n"
                        << "api_key_env = \"\"\njudge = false\nmax_attempts = 1\n" << llm_extra
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  // Every file under the test's folder (runs, store, transcripts, memory.md, compile logs, the
  // coordinator's output, the home folder) that holds `text`; the secret file itself excluded.
  std::vector<std::string> files_holding(std::string_view text, const fs::path& except) {
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator{dir})
      if (entry.is_regular_file() && entry.path() != except &&
          read_text(entry.path()).find(text) != std::string::npos)
        found.push_back(entry.path().string());
    return found;
  }

  std::string proposal_of(const fs::path& run) {
    const auto all = read_text(run / "jobs" / "transpose" / "iter-1" / "proposal.json");
    const auto at = all.find("\"candidates\"");
    return at == std::string::npos ? std::string{} : all.substr(at); // the note before it holds times
  }
};

// Each spelling NVRTC 13 accepts (tried by hand: every one of them copied the file's first line
// into its log before the fix). "FILE" stands for the host file's absolute path.
const std::vector<std::string> bypasses{
  "#\\\ninclude \"FILE\"\n",
  "#/**/include \"FILE\"\n",
  "%:include \"FILE\"\n",
  "#inc\\\nlude <FILE>\n",
  "#/*\n*/include \"FILE\"\n",
  "#include_next \"FILE\"\n",
  "#define HOST_FILE \"FILE\"\n#include HOST_FILE\n",
  "#if __has_include(\"FILE\")\n#define HAS_IT 1\n#endif\n",
  "#include \"FILE\"\n",
  "  %:  include/* */\"FILE\"\n",
};

TEST_F(ModelCode, AHostFileIncludedThroughEveryBypassIsRefusedAndItsContentsGoNowhere) {
  const auto host_file = dir / "host-file.txt";
  std::ofstream{host_file} << secret_contents << "\n";
  const std::string kernel = transpose_kernel();
  std::vector<std::string> replies;
  for (auto bypass : bypasses) {
    for (auto at = bypass.find("FILE"); at != std::string::npos; at = bypass.find("FILE", at))
      bypass.replace(at, 4, host_file.string());
    replies.push_back(warpforge::llm::testing::one_variant_envelope(bypass + kernel, "the tile needs a header"));
  }
  // Every request gets the next bypass: the propose of each iteration and each fix_compile after it.
  loopback_server server{[&](connection& c) { warpforge::llm::scripted::openai_reply(c, replies[c.index() % replies.size()]); }};
  const auto campaign = write_llm_campaign("includes", "kind = \"llm\"", server.base_url() + "/v1",
                                           "iterations = 2\nbranches = 4\npatience = 2",
                                           "max_fix_tries = 4\nmax_reasks = 0\n");

  ASSERT_EQ(wait_exit(start({"run", campaign.string()})), 0) << stderr_text();
  ASSERT_FALSE(run_dir().empty());
  const auto requests = server.requests();
  EXPECT_GE(requests.size(), bypasses.size()) << "every bypass was answered at least once";
  EXPECT_TRUE(server.handler_errors().empty());

  EXPECT_EQ(files_holding(secret_contents, host_file), std::vector<std::string>{})
    << "the host file's contents are in the run directory, the store or the coordinator's output";
  for (const auto& request : requests)
    EXPECT_EQ(request.body.find(secret_contents), std::string::npos) << "request " << request.index;

  // Refused, with the reason, where the model and the run see it: the fix_compile prompts and
  // the branches' compile errors.
  std::string prompts;
  for (const auto& request : requests)
    prompts += request.body;
  EXPECT_NE(prompts.find("only relative paths inside the problem's folder, or CUDA headers, may be included"),
            std::string::npos);
  EXPECT_NE(prompts.find("line 1 column 1: #include"), std::string::npos);
  EXPECT_NE(prompts.find("a macro cannot be checked"), std::string::npos);
  EXPECT_NE(prompts.find("__has_include(\\\"" + host_file.string()), std::string::npos);
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE purpose = 'fix_compile'"), 8);
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'branch' AND outcome <> 'compile_error'"), 0)
    << "no variant that names the host file compiled";
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'branch' AND outcome = 'compile_error'"), 2);
  EXPECT_FALSE(files_holding("may be included", host_file).empty()) << "the reason is recorded in the run";
  expect_consistent_store();
}

// The reply that crashed the coordinator, then one over the size bound, then a valid one: the
// first two are refused and re-asked, the third runs; a replay of the transcripts decides the same.
TEST_F(ModelCode, AReplyOfSixtyThousandSpacesOrOverTheBoundIsRefusedAndTheCampaignAndItsReplayEnd) {
  const std::string spaces(60'000, ' ');
  const std::string kernel = transpose_kernel();
  const std::vector<std::string> replies{
    warpforge::llm::testing::one_variant_envelope("// same" + spaces + "as before\n" + kernel, "same"),
    warpforge::llm::testing::one_variant_envelope(kernel, "padded") +
      std::string(warpforge::llm::max_reply_bytes, ' '),
    warpforge::llm::testing::one_variant_envelope("// same" + spaces + "\n" + kernel, "the kernel as it is")};
  loopback_server server{[&](connection& c) {
    warpforge::llm::scripted::openai_reply(c, replies[std::min(c.index(), replies.size() - 1)]);
  }};
  const auto campaign = write_llm_campaign("spaces", "kind = \"llm\"", server.base_url() + "/v1",
                                           "iterations = 1\nbranches = 4\npatience = 2",
                                           "max_fix_tries = 1\nmax_reasks = 2\n");

  ASSERT_EQ(wait_exit(start({"run", campaign.string()})), 0) << "not 139 (SIGSEGV): " << stderr_text();
  const auto first = run_dir();
  ASSERT_FALSE(first.empty());
  expect_consistent_store();
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_NE(requests[1].body.find("elided_code"), std::string::npos) << "the first re-ask names the refusal";
  EXPECT_NE(requests[1].body.find("marks code left out ('same as before')"), std::string::npos);
  EXPECT_NE(requests[2].body.find("too_long"), std::string::npos) << "the second names the size bound";
  EXPECT_NE(requests[2].body.find("at most " + std::to_string(warpforge::llm::max_reply_bytes) + " bytes"),
            std::string::npos);
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE purpose = 'reask'"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'branch'"), 1) << "the third reply's kernel was taken";

  fs::rename(first, dir / "first-run");
  const auto replay = write_llm_campaign("replay", "kind = \"replay\"\nreplay_from = \"" + (dir / "first-run").string() + "\"",
                                         server.base_url() + "/v1", "iterations = 1\nbranches = 4\npatience = 2",
                                         "max_fix_tries = 1\nmax_reasks = 2\n");
  ASSERT_EQ(wait_exit(start({"run", replay.string()})), 0) << "the replay reads the same replies: " << stderr_text();
  EXPECT_EQ(server.request_count(), 3u) << "a replay asks no server";
  EXPECT_FALSE(proposal_of(run_dir()).empty());
  EXPECT_EQ(proposal_of(run_dir()), proposal_of(dir / "first-run")) << "decided the same from the transcripts";
}

} // namespace
