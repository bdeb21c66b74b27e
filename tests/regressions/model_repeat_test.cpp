// Issue 26, through the real `warpforge run` (the llm proposer against a loopback
// OpenAI-compatible server, NVRTC, the stand-in GPUs, SQLite): a model that sends back the kernel
// it sent the round before (recommented, re-indented, renamed) is recognised by the kernel's
// content. The repeat is recorded as a duplicate of the measured branch, not compiled, checked or
// raced again (no measurement row, no branch_measured event), and the next request the model's
// server receives says which branch it repeated. The model's variants are compiled with their
// own defines only and their rows record exactly those. The replies are hand-written test data in
// the documented envelope, not a model's answers.

#include "tests/apps/cli/campaign_fixture.hpp"
#include "tests/llm/support/loopback_server.hpp"

#include "foundation/json/writer.hpp"
#include "tests/llm/chat/scripted_provider.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using warpforge::llm::testing::connection;
using warpforge::llm::testing::loopback_server;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// One variant of the transpose example's kernel, with its own defines.
std::string envelope(std::string_view name, std::string_view code, int pad) {
  warpforge::json::writer w;
  w.begin_object().key("analysis").value("uncoalesced stores: stage the tile in shared memory");
  w.key("variants").begin_array().begin_object();
  w.key("name").value(name).key("memo").value("shared tile");
  w.key("methods").begin_array().value("memory.tiling_smem").end_array();
  w.key("defines").begin_object().key("USE_SMEM_TILE").value(1).key("PAD").value(pad).end_object();
  w.key("code").value(code).end_object();
  w.end_array().end_object();
  return "```json\n" + std::move(w).str() + "\n```\n";
}

class ModelRepeat : public campaign_fixture {};

TEST_F(ModelRepeat, AKernelSentAgainIsADuplicateNeitherCompiledNorRacedAndTheNextPromptSaysSo) {
  const auto kernel = read_text(WARPFORGE_SOURCE_DIR "/examples/transpose/kernel.cu");
  auto again = "// Second thoughts: the same tile, explained again.\n\n" + kernel;
  for (auto at = again.find("\n  "); at != std::string::npos; at = again.find("\n  ", at + 4))
    again.replace(at, 3, "\n    "); // re-indented
  const std::vector<std::string> replies{envelope("tiled", kernel, 0), envelope("tiled_again", again, 0),
                                         envelope("padded", kernel, 1)};
  loopback_server server{[&](connection& c) {
    warpforge::llm::scripted::openai_reply(c, replies[std::min(c.index(), replies.size() - 1)]);
  }};
  const auto campaign = dir / "repeat.toml";
  std::ofstream{campaign} << "name = \"repeat\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                          << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                          << "[budget]\niterations = 3\nbranches = 1\npatience = 3\n"
                          << "[proposer]\nkind = \"llm\"\n"
                          << "[llm]\nprovider = \"openai\"\nmodel = \"scripted\"\nbase_url = \"" << server.base_url()
                          << "/v1\"\napi_key_env = \"\"\njudge = false\nmax_attempts = 1\n"
                          << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";

  ASSERT_EQ(wait_exit(start({"run", campaign.string()})), 0) << stderr_text();
  ASSERT_FALSE(run_dir().empty());
  expect_consistent_store();
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u) << "one propose per iteration, no compile fix";
  EXPECT_TRUE(server.handler_errors().empty());

  const std::string branch_of = "FROM branches b JOIN iterations i ON b.iteration_id = i.id WHERE b.kind = 'branch' ";
  // Iteration 1: the tiled kernel, measured, its row holding its own defines only.
  EXPECT_EQ(count("SELECT count(*) " + branch_of + "AND i.number = 1 AND b.ordinal = 1 AND b.outcome = 'passed' "
                  "AND b.defines_json = '{\"PAD\":0,\"USE_SMEM_TILE\":1}' AND b.duplicate_of_iteration IS NULL"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM measurements m JOIN branches b ON m.branch_id = b.id JOIN iterations i "
                  "ON b.iteration_id = i.id WHERE i.number = 1 AND b.ordinal = 1"),
            1);
  // Iteration 2: the same kernel again, recorded as the duplicate of iteration 1 branch 1.
  EXPECT_EQ(count("SELECT count(*) " + branch_of + "AND i.number = 2 AND b.ordinal = 0 AND b.outcome = 'not_run' "
                  "AND b.duplicate_of_iteration = 1 AND b.duplicate_of_ordinal = 1 "
                  "AND b.detail LIKE 'duplicate of iteration 1 branch 1%'"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM measurements m JOIN branches b ON m.branch_id = b.id JOIN iterations i "
                  "ON b.iteration_id = i.id WHERE i.number = 2"),
            0)
    << "the runner raced nothing in iteration 2";
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'branch_measured' AND iter = 2"), 0);
  EXPECT_FALSE(fs::exists(run_dir() / "jobs" / "transpose" / "iter-2" / "branch-0" / "kernel-sm_90.cubin"))
    << "not compiled";
  // Iteration 3: the next request says which branch was repeated; the new variant is measured.
  EXPECT_EQ(requests[1].body.find("You repeated yourself"), std::string::npos);
  EXPECT_NE(requests[2].body.find("## You repeated yourself"), std::string::npos);
  EXPECT_NE(requests[2].body.find("- tiled_again (iteration 2) repeated tiled (iteration 1, branch 1)"),
            std::string::npos);
  EXPECT_EQ(count("SELECT count(*) " + branch_of + "AND i.number = 3 AND b.outcome = 'passed' "
                  "AND b.duplicate_of_iteration IS NULL"),
            1);
}

} // namespace
