// A model's leave-one-out ablations through the real binary on the stand-in GPUs (issue 26): a
// loopback model (scripts/scripted_llm_server.py) answers with two variants claiming two methods
// each, the first with its two ablations, the second with none. The first is made the winner
// (the stand-in runner times its folder at 0.25 ms); its ablations are raced like the tuner's and
// attributed in the store and the summary's Methods table. The second is accepted without a
// re-ask, its branch noting that its gain cannot be attributed (llm/reply/ablation_check.hpp says
// why this is not re-asked).

#include "campaign_fixture.hpp"

#include "foundation/json/writer.hpp"

#include <regex>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

const fs::path kernels = fs::path{WARPFORGE_SOURCE_DIR} / "tests" / "llm" / "fixtures" / "transpose" / "kernels";

std::string kernel(const std::string& file) {
  std::ifstream in{kernels / file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << kernels / file;
  return text.str();
}

// One variant of the transpose's tiled kernel: 32x32 padded tile, `rows` rows of threads.
void variant(warpforge::json::writer& w, const std::string& name, std::int64_t rows, bool with_ablations) {
  w.begin_object().key("name").value(name).key("memo").value("32x32 padded smem tile");
  w.key("methods").begin_array().value("memory.tiling_smem").value("memory.bank_conflict").end_array();
  w.key("defines").begin_object().key("TILE_DIM").value(32).key("THREAD_ROWS").value(rows).end_object();
  w.key("launch").begin_object();
  w.key("grid").begin_array().value("ceil_div(COLS, TILE_DIM)").value("ceil_div(ROWS, TILE_DIM)").end_array();
  w.key("block").begin_array().value("TILE_DIM").value("THREAD_ROWS").end_array();
  w.end_object();
  w.key("code").value(kernel("tile_pad.cu"));
  if (with_ablations) {
    w.key("ablations").begin_array();
    w.begin_object().key("without").value("memory.bank_conflict").key("code").value(kernel("tile_nopad.cu")).end_object();
    w.begin_object().key("without").value("memory.tiling_smem").key("code").value(kernel("direct.cu")).end_object();
    w.end_array();
  }
  w.end_object();
}

class LlmAblations : public campaign_fixture {
protected:
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      wait_exit(server_);
    }
    campaign_fixture::TearDown();
  }

  // The scripted server answering the propose request with `reply`; its base URL once it listens.
  std::string start_server(const std::string& reply) {
    std::ofstream{dir / "propose.reply.txt"} << reply;
    std::ofstream{dir / "manifest.json"}
      << R"({"replies": [{"job": "transpose", "kind": "propose", "file": "propose.reply.txt"}]})";
    server_ = spawn(WARPFORGE_PYTHON3, {WARPFORGE_SOURCE_DIR "/scripts/scripted_llm_server.py", "--port", "0",
                                        "--manifest", (dir / "manifest.json").string(),
                                        "--log", (dir / "server-calls.jsonl").string()},
                    {}, "server-out.txt", "server-err.txt");
    const std::regex listening{"on (http://127\\.0\\.0\\.1:[0-9]+/v1)"};
    for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(50ms)) {
      std::smatch m;
      const auto text = text_of("server-err.txt");
      if (std::regex_search(text, m, listening))
        return m[1];
    }
    return {};
  }

  fs::path write_llm_campaign(const std::string& base_url) {
    const auto file = dir / "ablations.toml";
    std::ofstream{file} << "name = \"ablations\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[budget]\niterations = 1\nbranches = 2\npatience = 1\n"
                        << "[proposer]\nkind = \"llm\"\n"
                        << "[llm]\nprovider = \"openai\"\nmodel = \"scripted\"\nbase_url = \"" << base_url << "\"\n"
                        << "api_key_env = \"\"\njudge = false\nmax_attempts = 1\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  // `warpforge run` on the stand-in GPUs, the branch in `fast_folder` timed fastest.
  pid_t run_with_fast(const fs::path& campaign, const std::string& fast_folder) {
    return spawn(WARPFORGE_BIN, {"run", campaign.string()},
                 {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                  "WARPFORGE_FAKE_RUNNER_FAST_PATH=" + fast_folder, "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                 "stdout.txt", "stderr.txt");
  }

private:
  pid_t server_ = 0;
};

TEST_F(LlmAblations, TheWinnersAblationsAreRacedAndAttributedAndAVariantWithoutThemIsNoted) {
  warpforge::json::writer w;
  w.begin_object().key("analysis").value("uncoalesced stores: stage a padded tile in shared memory");
  w.key("variants").begin_array();
  variant(w, "paired", 8, true);
  variant(w, "unablated", 16, false);
  w.end_array().end_object();
  const auto url = start_server("```json\n" + std::move(w).str() + "\n```\n");
  ASSERT_FALSE(url.empty()) << text_of("server-err.txt");

  // Iteration 1: the baseline is branch 0, the variants branches 1 and 2 in reply order.
  ASSERT_EQ(wait_exit(run_with_fast(write_llm_campaign(url), "iter-1/branch-1/")), 0) << stderr_text();
  expect_consistent_store();
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE purpose = 'propose' AND outcome = 'ok'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE purpose = 'reask'"), 0)
    << "missing ablations are noted, not re-asked";

  // The winner is the variant that brought its ablations.
  const std::string champion = "(SELECT champion_branch_id FROM iterations WHERE number = 1)";
  EXPECT_EQ(count("SELECT ordinal FROM branches WHERE id = " + champion), 1);
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE id = " + champion + " AND source_path LIKE '%paired.cu'"), 1);

  // Its two ablations: recorded as its children, one per claimed method, raced (measured).
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'ablation' AND parent_branch_id = " + champion), 2);
  for (const std::string method : {"memory.tiling_smem", "memory.bank_conflict"})
    EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'ablation' AND parent_branch_id = " + champion +
                    " AND methods_json = '[\"" + method + "\"]' AND outcome = 'passed'"), 1) << method;
  EXPECT_EQ(count("SELECT count(*) FROM measurements m JOIN branches b ON m.branch_id = b.id "
                  "WHERE b.kind = 'ablation'"), 2) << "both ablations were raced";
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'ablation_measured'"), 2);

  // Attributed: the summary's Methods table has a row per claimed method. Without either method
  // the kernel is slower than the 0.25 ms winner by far more than the noise: both effective.
  const auto summary = text_of("runs/" + run_dir().filename().string() + "/summary.md");
  const auto methods = summary.substr(std::min(summary.size(), summary.find("### Methods")));
  for (const std::string method : {"memory.tiling_smem", "memory.bank_conflict"})
    EXPECT_TRUE(std::regex_search(methods, std::regex{"\\| 1 \\| " + std::regex_replace(method, std::regex{"\\."}, "\\.") +
                                                      " \\| \\+[0-9.]+ [mu]s \\| effective \\|"}))
      << method << " has no attribution row:\n" << methods.substr(0, 800);

  // The variant without ablations was kept, its branch noting why its gain cannot be attributed.
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'branch' AND source_path LIKE '%unablated.cu' "
                  "AND outcome = 'passed'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'branch_proposed' "
                  "AND json LIKE '%no ablations: attribution not possible%'"), 1)
    << "only the variant without ablations says so";
}

} // namespace
