// Needs a GPU (labels gpu, cheat): a model-driven campaign on the real runner whose model (the
// scripted loopback server, scripts/scripted_llm_server.py) proposes a memoizing transpose
// (campaign/memo_smem_tile.cu): unverified it would be the fastest variant by far; it must end
// `inconsistent`, and no iteration may crown it. Skips without a usable GPU.
#include "foundation/json/writer.hpp"
#include "tests/cheat/cheat_manifest.hpp"
#include "tests/apps/cli/campaign_fixture.hpp"

#include <regex>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

constexpr int exit_no_gpu = 5; // apps/warpforge/cli/exit_codes.hpp exit_code::no_gpu

class cheat_campaign : public campaign_fixture {
protected:
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      wait_exit(server_);
    }
    campaign_fixture::TearDown();
  }

  // `warpforge args...` on the real runner.
  pid_t start_real(std::vector<std::string> args) {
    const char* runner = std::getenv("WARPFORGE_RUNNER");
    return spawn(WARPFORGE_BIN, std::move(args),
                 {"WARPFORGE_RUNNER=" + std::string{runner && *runner ? runner : WARPFORGE_RUNNER_PATH},
                  "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                 "stdout.txt", "stderr.txt");
  }

  // The scripted model's one proposal: the memoizing kernel, claiming the tiling it does apply.
  void write_script() {
    const auto source = warpforge::cheat::source_root() / "tests/cheat/campaign/memo_smem_tile.cu";
    std::ifstream in{source};
    std::stringstream code;
    code << in.rdbuf();
    warpforge::json::writer w;
    w.begin_object().key("analysis").value("A shared-memory tile makes reads and writes coalesced.");
    w.key("variants").begin_array().begin_object();
    w.key("name").value("tile32x8_fast").key("memo").value("32x32 padded smem tile, 32x8 threads");
    w.key("methods").begin_array().value("memory.tiling_smem").end_array();
    w.key("defines").begin_object().key("TILE_DIM").value(std::int64_t{32}).key("THREAD_ROWS").value(std::int64_t{8}).end_object();
    w.key("launch").begin_object();
    w.key("grid").begin_array().value("ceil_div(COLS, TILE_DIM)").value("ceil_div(ROWS, TILE_DIM)").end_array();
    w.key("block").begin_array().value("TILE_DIM").value("THREAD_ROWS").end_array();
    w.key("shared_bytes").value("0").end_object();
    w.key("code").value(code.str());
    w.end_object().end_array().end_object();
    std::ofstream{dir / "propose.reply.txt"} << "Here is a tiled transpose.\n\n```json\n" << std::move(w).str() << "\n```\n";
    std::ofstream{dir / "script.json"}
      << R"({"replies": [{"job": "transpose", "kind": "propose", "file": "propose.reply.txt"}]})";
  }

  std::string start_server() {
    server_ = spawn(WARPFORGE_PYTHON3, {warpforge::cheat::source_root() / "scripts/scripted_llm_server.py", "--port", "0",
                                        "--manifest", (dir / "script.json").string(),
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

  fs::path write_campaign(const std::string& base_url) {
    const auto file = dir / "memo.toml";
    std::ofstream{file} << "name = \"memo\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" << (warpforge::cheat::source_root() / "examples/transpose/problem.toml").string()
                        << "\"\n[budget]\niterations = 1\nbranches = 4\npatience = 1\n"
                        << "[proposer]\nkind = \"llm\"\n"
                        << "[llm]\nprovider = \"openai\"\nmodel = \"scripted\"\nbase_url = \"" << base_url << "\"\n"
                        << "api_key_env = \"\"\njudge = false\nmax_attempts = 1\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

private:
  pid_t server_ = 0;
};

} // namespace

TEST_F(cheat_campaign, a_memoizing_proposal_is_inconsistent_and_never_crowned) {
  if (wait_exit(start_real({"doctor", "--require-gpu", "--run-root", (dir / "runs").string()})) == exit_no_gpu)
    GTEST_SKIP() << "no usable GPU: " << text_of("stdout.txt");
  write_script();
  const auto url = start_server();
  ASSERT_FALSE(url.empty()) << text_of("server-err.txt");
  const auto campaign = write_campaign(url);
  const auto code = wait_exit_within(start_real({"run", campaign.string()}), 480s);
  ASSERT_TRUE(code) << "the campaign did not end: " << stderr_text();
  EXPECT_EQ(*code, 0) << stderr_text();
  EXPECT_GE(count("SELECT count(*) FROM branches WHERE outcome = 'inconsistent' AND detail LIKE '%timed launch%'"), 1)
    << "the memoizing variant is caught by a verified timed launch; stderr: " << stderr_text();
  EXPECT_EQ(count("SELECT count(*) FROM iterations i JOIN branches b ON b.id = i.champion_branch_id "
                  "WHERE b.outcome <> 'passed'"), 0)
    << "only a passed branch is ever a champion";
  EXPECT_EQ(count("SELECT count(*) FROM measurements m JOIN branches b ON b.id = m.branch_id "
                  "WHERE b.outcome = 'inconsistent'"), 0)
    << "no time is recorded for it";
}
