// The model's leave-one-outs become the candidate's ablations, the same shape the tuner's take
// (pipeline/job_driver.cpp races the champion's and attributes them); a variant claiming two
// methods without them is kept with a note, not re-asked (llm/reply/ablation_check.hpp).

#include "pipeline/llm/proposer.hpp"

#include "foundation/json/writer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;

const fs::path kernels = fs::path{WARPFORGE_SOURCE_DIR} / "tests" / "llm" / "fixtures" / "transpose" / "kernels";

std::string kernel(const std::string& file) {
  std::ifstream in{kernels / file, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Answers every request with the same text, keeping their purposes.
class one_reply_model final : public llm::chat_client {
public:
  explicit one_reply_model(std::string text) : text_(std::move(text)) {}
  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override {
    purposes.push_back(request.purpose);
    llm::chat_reply r;
    r.text = text_;
    r.model = request.model;
    return r;
  }
  std::vector<std::string> purposes;

private:
  std::string text_;
};

std::string reply() {
  json::writer w;
  w.begin_object().key("analysis").value("stage a padded tile");
  w.key("variants").begin_array();
  for (const std::string name : {"paired", "unablated"}) {
    w.begin_object().key("name").value(name).key("memo").value("padded tile");
    w.key("methods").begin_array().value("memory.tiling_smem").value("memory.bank_conflict").end_array();
    // Different rows of threads: two equal variants would be one kernel (a repeat, not built twice).
    w.key("defines").begin_object().key("TILE_DIM").value(32).key("THREAD_ROWS").value(name == "paired" ? 8 : 16).end_object();
    w.key("launch").begin_object();
    w.key("grid").begin_array().value("ceil_div(COLS, TILE_DIM)").value("ceil_div(ROWS, TILE_DIM)").end_array();
    w.key("block").begin_array().value("TILE_DIM").value("THREAD_ROWS").end_array();
    w.end_object();
    w.key("code").value(kernel("tile_pad.cu"));
    if (name == "paired") {
      w.key("ablations").begin_array();
      w.begin_object().key("without").value("memory.bank_conflict").key("code").value(kernel("tile_nopad.cu")).end_object();
      w.begin_object().key("without").value("memory.tiling_smem").key("code").value(kernel("direct.cu"));
      w.key("defines").begin_object().key("TILE_DIM").value(32).key("THREAD_ROWS").value(32).end_object().end_object();
      w.end_array();
    }
    w.end_object();
  }
  w.end_array().end_object();
  return "```json\n" + std::move(w).str() + "\n```\n";
}

TEST(LlmAblationRouting, LeaveOneOutsBecomeTheCandidatesAblationsAndMissingOnesAreNotedNotReasked) {
  const auto root = fs::temp_directory_path() / ("wf-llm-ablations-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "run");
  auto model = std::make_shared<one_reply_model>(reply());
  llm_context context;
  context.llm.model = "scripted";
  context.llm.judge = false;
  context.patterns_file = root / "patterns.json";
  context.model = model;
  llm_proposer proposer{context};
  propose_request request;
  request.job = "transpose";
  request.problem_path = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";
  request.iteration = 1;
  request.branches = 2;
  request.run_dir = (root / "run").string();
  auto made = proposer.propose(request);
  fs::remove_all(root);
  ASSERT_TRUE(made) << made.error();
  EXPECT_EQ(model->purposes, std::vector<std::string>{"propose"}) << "no re-ask for the missing ablations";
  ASSERT_EQ(made->candidates.size(), 2u);

  const auto& paired = made->candidates[0];
  EXPECT_EQ(paired.note, "padded tile") << "nothing missing, nothing noted";
  ASSERT_EQ(paired.ablations.size(), 2u);
  const auto& no_padding = paired.ablations[0];
  EXPECT_EQ(no_padding.kind, vocabulary::branch_kind::ablation);
  EXPECT_EQ(no_padding.methods, std::vector<std::string>{"memory.bank_conflict"}) << "the one method it leaves out";
  EXPECT_EQ(no_padding.source, kernel("tile_nopad.cu"));
  EXPECT_EQ(no_padding.source_name, "paired-without-memory_bank_conflict.cu");
  EXPECT_EQ(no_padding.defines, paired.defines) << "inherited from its variant";
  ASSERT_TRUE(no_padding.launch && paired.launch);
  EXPECT_EQ(no_padding.launch->block, paired.launch->block);
  const auto& untiled = paired.ablations[1];
  EXPECT_EQ(untiled.methods, std::vector<std::string>{"memory.tiling_smem"});
  EXPECT_EQ(untiled.defines.at("THREAD_ROWS"), 32) << "its own defines";
  ASSERT_TRUE(untiled.launch);
  EXPECT_EQ(untiled.launch->block, (std::array<std::uint32_t, 3>{32, 32, 1})) << "its launch at its own defines";

  const auto& unablated = made->candidates[1];
  EXPECT_TRUE(unablated.ablations.empty());
  EXPECT_EQ(unablated.note, "padded tile; no ablations: attribution not possible");
  EXPECT_NE(made->note.find("unablated: no ablations: attribution not possible"), std::string::npos) << made->note;
  EXPECT_EQ(made->note.find("paired: no ablation"), std::string::npos) << made->note;
}

} // namespace
} // namespace warpforge::pipeline
