// An llm campaign through the real binary on the stand-in GPUs, its model a loopback
// OpenAI-compatible server answering with scripted replies (scripts/scripted_llm_server.py, the
// same server the GPU check uses; the replies are tests/llm/fixtures, real kernel rewrites):
// the llm actor, the proposer's workers, NVRTC's compile-fix loop, the llm_calls rows, the
// transcripts, doctor's one-token check, and a replay with no server that decides the same.

#include "campaign_fixture.hpp"

#include <regex>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

class LlmCampaign : public campaign_fixture {
protected:
  void TearDown() override {
    stop_server();
    campaign_fixture::TearDown();
  }

  // The scripted server on a free port; its base URL once it listens.
  std::string start_server() {
    server_ = spawn(WARPFORGE_PYTHON3, {WARPFORGE_SOURCE_DIR "/scripts/scripted_llm_server.py", "--port", "0",
                                        "--manifest", WARPFORGE_SOURCE_DIR "/examples/llm/scripted.json",
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
  void stop_server() {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      wait_exit(server_);
      server_ = 0;
    }
  }

  fs::path write_llm_campaign(const std::string& name, const std::string& proposer, const std::string& base_url) {
    const auto file = dir / (name + ".toml");
    std::ofstream{file} << "name = \"" << name << "\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[budget]\niterations = 2\nbranches = 4\npatience = 2\n"
                        << "[proposer]\n" << proposer << "\n"
                        << "[llm]\nprovider = \"openai\"\nmodel = \"scripted\"\nbase_url = \"" << base_url << "\"\n"
                        << "api_key_env = \"\"\njudge = false\nmax_attempts = 1\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  std::string proposal_of(const fs::path& run, int iteration) {
    std::ifstream in{run / "jobs" / "transpose" / ("iter-" + std::to_string(iteration)) / "proposal.json"};
    std::stringstream text;
    text << in.rdbuf();
    const auto all = text.str();
    const auto at = all.find("\"candidates\"");
    return at == std::string::npos ? std::string{} : all.substr(at); // the note before it holds times
  }

private:
  pid_t server_ = 0;
};

TEST_F(LlmCampaign, AModelDrivenCampaignRunsEndToEndAndItsReplayDecidesTheSameWithNoServer) {
  const auto url = start_server();
  ASSERT_FALSE(url.empty()) << text_of("server-err.txt");
  const auto campaign = write_llm_campaign("llm", "kind = \"llm\"", url);

  ASSERT_EQ(wait_exit(start({"doctor", "--campaign", campaign.string()})), 0) << text_of("stdout.txt");
  EXPECT_NE(text_of("stdout.txt").find("openai scripted at " + url + ": answers"), std::string::npos)
    << text_of("stdout.txt");

  ASSERT_EQ(wait_exit(start({"run", campaign.string()})), 0) << stderr_text();
  const auto first = run_dir();
  expect_consistent_store();
  // Iteration 1: the model's three variants, the one NVRTC rejected repaired within the round.
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE iteration = 1 AND purpose = 'propose' AND outcome = 'ok'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM llm_calls WHERE iteration = 1 AND purpose = 'fix_compile' AND outcome = 'ok'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM branches b JOIN iterations i ON b.iteration_id = i.id "
                  "WHERE i.number = 1 AND b.kind = 'branch'"), 3);
  EXPECT_EQ(count("SELECT count(*) FROM branches WHERE outcome = 'compile_error'"), 0) << "the repair compiled";
  EXPECT_GT(count("SELECT sum(input_tokens + output_tokens) FROM llm_calls"), 1000) << "tokens accounted";
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'llm_call'"), count("SELECT count(*) FROM llm_calls"));
  EXPECT_TRUE(fs::exists(first / "llm" / "transpose" / "iter-1" / "01-propose.json"));
  EXPECT_TRUE(fs::exists(first / "llm" / "transpose" / "iter-1" / "02-fix_compile.json"));
  EXPECT_NE(text_of("server-calls.jsonl").find("\"kind\": \"fix_compile\""), std::string::npos);

  stop_server();
  ASSERT_EQ(wait_exit(start({"doctor", "--campaign", campaign.string()})), 1) << "no model answers now";
  EXPECT_NE(text_of("stdout.txt").find("NO ANSWER"), std::string::npos) << text_of("stdout.txt");

  fs::rename(first, dir / "first-run");
  const auto replay = write_llm_campaign("replay", "kind = \"replay\"\nreplay_from = \"" + (dir / "first-run").string() + "\"",
                                         url);
  ASSERT_EQ(wait_exit(start({"run", replay.string()})), 0) << stderr_text();
  for (int iteration : {1, 2})
    EXPECT_EQ(proposal_of(run_dir(), iteration), proposal_of(dir / "first-run", iteration))
      << "iteration " << iteration << " decided the same from the transcripts";
  EXPECT_FALSE(proposal_of(run_dir(), 1).empty());
}

TEST_F(LlmCampaign, AMissingKeyIsRefusedBeforeAnythingIsCreated) {
  const auto file = write_llm_campaign("nokey", "kind = \"llm\"", "http://127.0.0.1:9/v1");
  std::string text;
  {
    std::ifstream in{file};
    std::stringstream s;
    s << in.rdbuf();
    text = std::regex_replace(s.str(), std::regex{"api_key_env = \"\""}, "api_key_env = \"WF_TEST_UNSET_KEY\"");
  }
  std::ofstream{file} << text;
  EXPECT_EQ(wait_exit(start({"run", file.string()})), 3);
  EXPECT_NE(stderr_text().find("WF_TEST_UNSET_KEY is not set"), std::string::npos) << stderr_text();
  EXPECT_FALSE(fs::exists(dir / "runs")) << "nothing was created";
}

} // namespace
