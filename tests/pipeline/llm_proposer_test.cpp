// The llm proposer on the transpose example, against a scripted model (a test double for the
// provider: the HTTP clients have their own loopback tests) and the real NVRTC: the compile-fix
// loop, re-asks, correctness repairs, transcripts and their replay, budgets and failures.

#include "pipeline/llm/proposer.hpp"

#include "gpu/compile/nvrtc_compiler.hpp"
#include "foundation/json/writer.hpp"
#include "pipeline/llm/round.hpp"
#include "pipeline/llm/transcripts.hpp"
#include "pipeline/records.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;

const std::string transpose = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";

const std::string tiled_code = R"(#ifndef T_DIM
#define T_DIM 32
#endif
#ifndef T_ROWS
#define T_ROWS 8
#endif
extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[T_DIM][T_DIM + 1];
  int x = blockIdx.x * T_DIM + threadIdx.x;
  int y = blockIdx.y * T_DIM + threadIdx.y;
  for (int j = 0; j < T_DIM; j += T_ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * T_DIM + threadIdx.x;
  y = blockIdx.x * T_DIM + threadIdx.y;
  for (int j = 0; j < T_DIM; j += T_ROWS)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
)";

std::string broken(std::string code) { // an identifier NVRTC does not know
  code.replace(code.find("tile[threadIdx.y + j][threadIdx.x] ="), 4, "tyle");
  return code;
}

struct variant_text {
  std::string name;
  std::string code;
  std::int64_t rows_per_block = 8;
  std::string block_x = "T_DIM";
};

std::string envelope(const std::vector<variant_text>& variants) {
  json::writer w;
  w.begin_object().key("analysis").value("uncoalesced stores; stage the tile in shared memory");
  w.key("variants").begin_array();
  for (const auto& v : variants) {
    w.begin_object().key("name").value(v.name).key("memo").value("32x32 shared tile, padded");
    w.key("methods").begin_array().value("memory.tiling_smem").end_array();
    w.key("defines").begin_object().key("T_DIM").value(32).key("T_ROWS").value(v.rows_per_block).end_object();
    w.key("launch").begin_object();
    w.key("grid").begin_array().value("ceil_div(COLS, T_DIM)").value("ceil_div(ROWS, T_DIM)").end_array();
    w.key("block").begin_array().value(v.block_x).value("T_ROWS").end_array();
    w.end_object();
    w.key("code").value(v.code).end_object();
  }
  w.end_array().end_object();
  return "Here is my answer.\n```json\n" + std::move(w).str() + "\n```\n";
}

// The model, scripted: each call must have the purpose the script expects next.
class scripted_model final : public llm::chat_client {
public:
  struct turn {
    std::string purpose;
    expected<std::string, llm::chat_error> reply;
  };
  explicit scripted_model(std::vector<turn> script) : script_(script.begin(), script.end()) {}

  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override {
    std::lock_guard lock{mutex_};
    requests.push_back(request);
    if (script_.empty()) {
      ADD_FAILURE() << "an unscripted call: " << request.purpose;
      return unexpected{llm::chat_error{llm::chat_error_kind::config, "unscripted", std::nullopt, 0}};
    }
    auto next = std::move(script_.front());
    script_.pop_front();
    EXPECT_EQ(request.purpose, next.purpose);
    if (!next.reply)
      return unexpected{next.reply.error()};
    llm::chat_reply r;
    r.text = *next.reply;
    r.model = request.model;
    r.usage = {1000, 500, 200, 0};
    r.cost_usd = 0.01;
    return r;
  }
  bool done() const { return script_.empty(); }
  std::vector<llm::chat_request> requests;

private:
  std::deque<turn> script_;
  std::mutex mutex_;
};

class LlmProposerTest : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("wf-llm-proposer-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    run_dir = root / "run-1";
    fs::create_directories(run_dir);
  }
  void TearDown() override { fs::remove_all(root); }

  llm_context context(std::shared_ptr<llm::chat_client> model) const {
    llm_context c;
    c.llm.model = "test-model";
    c.llm.judge = false;
    c.compile = [](const gpu::compile_request& r) { return gpu::compile_kernel(r); };
    c.model = std::move(model);
    return c;
  }

  propose_request ask(std::int64_t iteration, std::vector<attempt> memory = {}, const fs::path& dir = {}) const {
    propose_request r;
    r.job = "transpose";
    r.problem_path = transpose;
    r.iteration = iteration;
    r.branches = 2;
    r.memory = std::move(memory);
    r.run_dir = (dir.empty() ? run_dir : dir).string();
    r.arch = "sm_90";
    return r;
  }

  fs::path root, run_dir;
};

std::vector<std::string> purposes(const std::vector<model_call>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls)
    out.push_back(c.purpose);
  return out;
}

TEST_F(LlmProposerTest, AVariantNvrtcRejectsGoesBackWithTheLogAndItsRepairIsProposed) {
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", tiled_code}, {"tiled_16", broken(tiled_code), 16}})},
    {"fix_compile", envelope({{"whatever", tiled_code, 16}})},
  });
  llm_proposer p{context(model)};
  auto made = p.propose(ask(1));
  ASSERT_TRUE(made) << made.error();
  EXPECT_TRUE(model->done());
  ASSERT_EQ(made->candidates.size(), 2u);
  EXPECT_EQ(made->candidates[0].source, tiled_code);
  EXPECT_EQ(made->candidates[1].source, tiled_code) << "the repaired code is what goes on";
  EXPECT_EQ(made->candidates[1].source_name, "tiled_16.cu") << "a repair keeps its variant's name";
  EXPECT_EQ(made->candidates[0].methods, std::vector<std::string>{"memory.tiling_smem"});
  ASSERT_TRUE(made->candidates[1].launch);
  EXPECT_EQ(made->candidates[1].launch->grid, (std::array<std::uint32_t, 3>{256, 256, 1}));
  EXPECT_EQ(made->candidates[1].launch->block, (std::array<std::uint32_t, 3>{32, 16, 1}));
  EXPECT_EQ(made->candidates[1].defines.at("T_ROWS"), 16);
  // The fix request carried NVRTC's own complaint about the unknown identifier.
  ASSERT_EQ(model->requests.size(), 2u);
  EXPECT_NE(model->requests[1].messages.back().text.find("tyle"), std::string::npos);
  EXPECT_EQ(purposes(made->calls), (std::vector<std::string>{"propose", "fix_compile"}));
  EXPECT_EQ(made->calls[0].input_tokens, 1000);
  EXPECT_DOUBLE_EQ(made->calls[1].cost_usd, 0.01);
  const auto folder = transcript_folder(run_dir, "transpose", 1);
  EXPECT_TRUE(fs::exists(folder / "01-propose.json"));
  EXPECT_TRUE(fs::exists(folder / "02-fix_compile.json"));
  EXPECT_EQ(made->calls[1].transcript, "llm/transpose/iter-1/02-fix_compile.json");
  std::ifstream tries{folder / "tries.txt"};
  std::string line;
  ASSERT_TRUE(std::getline(tries, line));
  EXPECT_EQ(line.rfind("tiled_16\tmemory.tiling_smem\tcompile error (try 1)", 0), 0u) << line;
  EXPECT_NE(made->note.find("2 variant(s) (tiled, tiled_16)"), std::string::npos) << made->note;
}

TEST_F(LlmProposerTest, AVariantStillBrokenAfterItsTriesIsHandedOnForThePipelineToRecord) {
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", broken(tiled_code)}})},
    {"fix_compile", envelope({{"tiled", broken(tiled_code)}})},
    {"fix_compile", envelope({{"tiled", broken(tiled_code)}})},
  });
  llm_proposer p{context(model)};
  auto made = p.propose(ask(1));
  ASSERT_TRUE(made) << made.error();
  EXPECT_TRUE(model->done()) << "max_fix_tries (2) repairs, no more";
  ASSERT_EQ(made->candidates.size(), 1u);
  EXPECT_EQ(made->candidates[0].source, broken(tiled_code));
}

TEST_F(LlmProposerTest, AReplyThatBreaksTheRulesIsReaskedWithThePreciseReason) {
  auto elided = tiled_code;
  elided.replace(elided.find("  __syncthreads();"), 18, "  // ... rest unchanged");
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", elided}})},
    {"reask", envelope({{"tiled", tiled_code}})},
  });
  llm_proposer p{context(model)};
  auto made = p.propose(ask(1));
  ASSERT_TRUE(made) << made.error();
  ASSERT_EQ(made->candidates.size(), 1u);
  ASSERT_EQ(model->requests.size(), 2u);
  const auto& reask = model->requests[1].messages;
  ASSERT_EQ(reask.size(), 3u) << "the prompt, the refused reply, the reason";
  EXPECT_EQ(reask[1].who, llm::role::assistant);
  EXPECT_NE(reask[2].text.find("rest unchanged"), std::string::npos) << reask[2].text;
}

TEST_F(LlmProposerTest, ALaunchOverTheDevicesLimitsIsReasked) {
  variant_text wide{"tiled", tiled_code};
  wide.block_x = "T_DIM * 64"; // 2048 x 8 threads
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({wide})},
    {"reask", envelope({{"tiled", tiled_code}})},
  });
  llm_proposer p{context(model)};
  auto made = p.propose(ask(1));
  ASSERT_TRUE(made) << made.error();
  ASSERT_EQ(model->requests.size(), 2u);
  EXPECT_NE(model->requests[1].messages.back().text.find("launch"), std::string::npos);
  ASSERT_EQ(made->candidates.size(), 1u);
  EXPECT_EQ(made->candidates[0].launch->block[0], 32u);
}

TEST_F(LlmProposerTest, ReplayMakesTheSameDecisionsFromTheTranscriptsWithNoModel) {
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", tiled_code}, {"tiled_16", broken(tiled_code), 16}})},
    {"fix_compile", envelope({{"x", tiled_code, 16}})},
  });
  llm_proposer live{context(model)};
  auto first = live.propose(ask(1));
  ASSERT_TRUE(first) << first.error();

  auto replay_context = context(nullptr);
  replay_context.replay_from = run_dir;
  llm_proposer replay{replay_context};
  const auto second_run = root / "run-2";
  auto again = replay.propose(ask(1, {}, second_run));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->candidates, first->candidates);
  EXPECT_EQ(purposes(again->calls), purposes(first->calls));
  EXPECT_TRUE(fs::exists(transcript_folder(second_run, "transpose", 1) / "02-fix_compile.json"))
    << "a replay keeps transcripts too";
  // An iteration the earlier run never reached: the replay says it diverged.
  auto beyond = replay.propose(ask(2, {}, second_run));
  ASSERT_TRUE(beyond);
  EXPECT_TRUE(beyond->candidates.empty());
  EXPECT_NE(beyond->note.find("diverged"), std::string::npos) << beyond->note;
}

attempt failed_branch(std::int64_t iteration, std::string detail) {
  attempt a;
  a.iteration = iteration;
  a.kind = vocabulary::branch_kind::branch;
  a.methods = {"memory.tiling_smem"};
  a.outcome = vocabulary::branch_outcome::incorrect;
  a.detail = std::move(detail);
  return a;
}

TEST_F(LlmProposerTest, AVariantThatFailedCorrectnessGoesBackWithItsReportUntilItsTriesAreSpent) {
  proposal earlier;
  candidate c;
  c.source = tiled_code;
  c.source_name = "tiled.cu";
  earlier.candidates.push_back(c);
  for (std::int64_t i = 1; i <= 3; ++i)
    ASSERT_TRUE(write_proposal(run_dir, "transpose", i, earlier));
  const std::string report = "FAILED: incorrect: out: 4096 of 67108864 elements differ; first at [31]: got 0, expected 1.5";

  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"fix_correctness", envelope({{"anything", tiled_code}})},
    {"propose", envelope({{"fresh", tiled_code}})},
  });
  llm_proposer p{context(model)};
  auto made = p.propose(ask(2, {failed_branch(1, report)}));
  ASSERT_TRUE(made) << made.error();
  ASSERT_EQ(made->candidates.size(), 2u);
  EXPECT_EQ(made->candidates[0].source_name, "tiled.cu") << "the repair keeps the name";
  const auto& fix = model->requests[0].messages.back().text;
  EXPECT_NE(fix.find("4096 of 67108864 elements differ"), std::string::npos);
  EXPECT_NE(fix.find("tile[threadIdx.x][threadIdx.y + j]"), std::string::npos) << "the failed code goes back";

  // Proposed in iterations 1, 2 and 3 already: 1 + max_fix_tries (2) tries are spent.
  auto spent = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"fresh", tiled_code}})},
  });
  llm_proposer q{context(spent)};
  auto next = q.propose(ask(4, {failed_branch(3, report)}));
  ASSERT_TRUE(next) << next.error();
  EXPECT_TRUE(spent->done());
  EXPECT_EQ(purposes(next->calls), std::vector<std::string>{"propose"});
}

TEST_F(LlmProposerTest, ASpentBudgetOrAnUnreachableModelEndsTheRoundCleanlyWithTheCallAccounted) {
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", unexpected{llm::chat_error{llm::chat_error_kind::budget_exhausted, "spent $5.01 of $5.00", std::nullopt, 0}}},
  });
  llm_proposer p{context(model)};
  auto made = p.propose(ask(1));
  ASSERT_TRUE(made) << made.error();
  EXPECT_TRUE(made->candidates.empty());
  EXPECT_NE(made->note.find("budget is spent"), std::string::npos) << made->note;
  ASSERT_EQ(made->calls.size(), 1u);
  EXPECT_EQ(made->calls[0].error, llm::chat_error_kind::budget_exhausted);
  EXPECT_EQ(outcome_word(made->calls[0]), "budget_exhausted");

  auto down = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", unexpected{llm::chat_error{llm::chat_error_kind::network, "connection refused", std::nullopt, 6}}},
  });
  llm_proposer q{context(down)};
  auto none = q.propose(ask(1));
  ASSERT_TRUE(none) << none.error();
  EXPECT_TRUE(none->candidates.empty());
  EXPECT_NE(none->note.find("network: connection refused"), std::string::npos) << none->note;
  EXPECT_EQ(none->calls.at(0).attempts, 6u);
}

TEST_F(LlmProposerTest, TheJudgesVerdictMustCiteMeasuredValuesAndIsReaskedOnceWhenItDoesNot) {
  const std::string bad = R"({"primary": {"category": "dram_bandwidth", "summary": "DRAM-bound",
    "evidence": [{"metric": "dram_throughput", "value": 55.0}]},
    "secondary": {"category": "uncoalesced_access", "summary": "strided stores",
    "evidence": [{"metric": "global_store_efficiency", "value": 12.5}]}})";
  std::string good = bad;
  good.replace(good.find("55.0"), 4, "79.0");
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{{"judge", bad}, {"judge", good}});
  recorded_chat chat{*model, transcript_folder(run_dir, "transpose", 1)};
  auto spec = context(nullptr).llm;
  llm_round round{chat, spec, {}, {}, {}, run_dir};
  llm::prompt_inputs inputs;
  inputs.problem.name = "transpose";
  inputs.diagnosis = llm::diagnosis_facts{};
  inputs.diagnosis->metrics = {{"Memory", "dram_throughput", 0.79, "ratio"},
                               {"Memory", "global_store_efficiency", 0.125, "ratio"}};
  auto verdict = round.judge(inputs);
  ASSERT_TRUE(verdict) << "the second answer cites the measured 79%";
  EXPECT_EQ(verdict->primary.category, "dram_bandwidth");
  EXPECT_EQ(verdict->secondary.category, "uncoalesced_access");
  ASSERT_EQ(model->requests.size(), 2u);
  EXPECT_NE(model->requests[1].messages.back().text.find("dram_throughput"), std::string::npos)
    << "the re-ask names the citation that did not match: " << model->requests[1].messages.back().text;
  EXPECT_EQ(purposes(round.calls()), (std::vector<std::string>{"judge", "judge"}));
}

TEST_F(LlmProposerTest, AMemoryPastTheThresholdIsCompactedByTheCheaperModelAndTheRoundGoesOn) {
  std::vector<attempt> memory;
  for (int i = 0; i < 40; ++i) {
    auto a = failed_branch(1, "FAILED: incorrect: output 'out': 4096 of 67108864 elements outside tolerance, first at "
                              "index " + std::to_string(i * 977));
    memory.push_back(a);
  }
  const std::string compacted = "## Resolved\n- nothing yet\n## Pending\n- smem tiling, padded\n"
                                "## Avoid\n- the 40 variants that wrote out of bounds\n";
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"compact", compacted},
    {"propose", envelope({{"tiled", tiled_code}})},
  });
  auto c = context(model);
  c.llm.compaction_model = "small-model";
  c.llm.compaction_threshold_chars = 1000;
  llm_proposer p{c};
  auto made = p.propose(ask(3, memory));
  ASSERT_TRUE(made) << made.error();
  EXPECT_EQ(purposes(made->calls), (std::vector<std::string>{"compact", "propose"}));
  ASSERT_EQ(model->requests.size(), 2u);
  EXPECT_EQ(model->requests[0].model, "small-model");
  EXPECT_EQ(model->requests[1].model, "test-model");
  std::string prompt;
  for (const auto& b : model->requests[1].system)
    prompt += b.text;
  prompt += model->requests[1].messages.back().text;
  EXPECT_NE(prompt.find("the 40 variants that wrote out of bounds"), std::string::npos);
  EXPECT_EQ(made->candidates.size(), 1u);
}

TEST_F(LlmProposerTest, AReplayIntoItsOwnRunDirectoryIsRefusedBeforeItsTranscriptsAreTouched) {
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", tiled_code}})},
  });
  llm_proposer live{context(model)};
  ASSERT_TRUE(live.propose(ask(1)));
  auto c = context(nullptr);
  c.replay_from = run_dir;
  llm_proposer replay{c};
  auto refused = replay.propose(ask(1));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("own directory"), std::string::npos) << refused.error();
  EXPECT_TRUE(fs::exists(transcript_folder(run_dir, "transpose", 1) / "01-propose.json")) << "nothing was removed";
}

TEST_F(LlmProposerTest, ARestartedProposerReusesTheKeptCompactionInsteadOfAskingAgain) {
  std::vector<attempt> memory;
  for (int i = 0; i < 40; ++i)
    memory.push_back(failed_branch(1, "FAILED: incorrect: output 'out': 4096 elements outside tolerance, first at "
                                      "index " + std::to_string(i * 977)));
  const std::string compacted = "## Resolved\n- nothing\n## Pending\n- tiling\n## Avoid\n- out of bounds writes\n";
  auto c = context(std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"compact", compacted}, {"propose", envelope({{"tiled", tiled_code}})}}));
  c.llm.compaction_threshold_chars = 1000;
  ASSERT_TRUE(llm_proposer{c}.propose(ask(3, memory)));

  // A fresh proposer (the actor restarted) for the next round, three attempts later: no new compaction.
  for (int i = 0; i < 3; ++i)
    memory.push_back(failed_branch(3, "FAILED: incorrect: one more"));
  auto again = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", tiled_code}})}});
  c.model = again;
  auto made = llm_proposer{c}.propose(ask(4, memory));
  ASSERT_TRUE(made) << made.error();
  EXPECT_EQ(purposes(made->calls), std::vector<std::string>{"propose"});
  std::string prompt;
  for (const auto& b : again->requests.at(0).system)
    prompt += b.text;
  EXPECT_NE(prompt.find("out of bounds writes"), std::string::npos) << "the kept compaction stands for the old attempts";
}

// Issue 26: a model's variant stands alone (its own defines only), and a variant it sends again
// (the same code once comments and whitespace are set aside, the same defines and launch) is
// handed on as a duplicate of the branch that measured it: not compiled, and the next prompt says so.
attempt measured_branch(std::int64_t iteration, std::int64_t ordinal, vocabulary::branch_kind kind,
                        vocabulary::branch_outcome outcome = vocabulary::branch_outcome::passed) {
  attempt a;
  a.iteration = iteration;
  a.ordinal = ordinal;
  a.kind = kind;
  a.outcome = outcome;
  a.median_s = outcome == vocabulary::branch_outcome::passed ? std::optional{1e-3} : std::nullopt;
  a.detail = outcome == vocabulary::branch_outcome::passed ? "ACCEPTED: 1.2x" : "not run";
  if (kind == vocabulary::branch_kind::branch)
    a.verdict = outcome == vocabulary::branch_outcome::passed ? tuning::branch_verdict::accepted
                                                              : tuning::branch_verdict::failed;
  return a;
}

TEST_F(LlmProposerTest, AVariantSentAgainIsADuplicateOfItsMeasuredBranchNotCompiledAndTheNextPromptSaysSo) {
  auto compiles = std::make_shared<std::atomic<int>>(0);
  auto counted = [&](std::shared_ptr<llm::chat_client> model) {
    auto c = context(std::move(model));
    c.compile = [compiles](const gpu::compile_request& r) {
      ++*compiles;
      return gpu::compile_kernel(r);
    };
    return c;
  };
  // Iteration 1: the tiled kernel, compiled with its own defines only (no TILE or BLOCK_ROWS).
  auto first_model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", tiled_code}})}});
  auto first = llm_proposer{counted(first_model)}.propose(ask(1));
  ASSERT_TRUE(first) << first.error();
  ASSERT_EQ(first->candidates.size(), 1u);
  EXPECT_EQ(first->candidates[0].compiled_defines, define_set::own_only);
  EXPECT_EQ(recorded_defines(first->candidates[0]), (config::tunable_point{{"T_DIM", 32}, {"T_ROWS", 8}}));
  EXPECT_FALSE(first->candidates[0].duplicate_of);
  EXPECT_EQ(compiles->load(), 1);
  ASSERT_TRUE(write_proposal(run_dir, "transpose", 1, *first));

  // Iteration 2: the same kernel again under another name, recommented and re-indented, beside a
  // new one. The baseline is branch 0, the tiled kernel branch 1 of iteration 1.
  auto again = "// second thoughts: stage the tile\n" + tiled_code;
  again.replace(again.find("  __syncthreads();"), 18, "    __syncthreads();   /* all of the tile */");
  std::vector<attempt> memory{measured_branch(1, 0, vocabulary::branch_kind::baseline),
                              measured_branch(1, 1, vocabulary::branch_kind::branch)};
  auto second_model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled_again", again}, {"tiled_16", tiled_code, 16}})}});
  auto request = ask(2, memory);
  request.first_ordinal = 0;
  auto second = llm_proposer{counted(second_model)}.propose(request);
  ASSERT_TRUE(second) << second.error();
  ASSERT_EQ(second->candidates.size(), 2u);
  ASSERT_TRUE(second->candidates[0].duplicate_of);
  EXPECT_EQ(*second->candidates[0].duplicate_of, (branch_place{1, 1}));
  EXPECT_FALSE(second->candidates[1].duplicate_of) << "other defines: another kernel";
  EXPECT_EQ(compiles->load(), 2) << "only the new variant was compiled";
  EXPECT_NE(second->note.find("tiled_again repeats iteration 1 branch 1"), std::string::npos) << second->note;
  ASSERT_TRUE(write_proposal(run_dir, "transpose", 2, *second));

  // Iteration 3: the prompt names the repeat; a variant sent twice in one reply is the second
  // time a duplicate of the first's branch (first_ordinal + 0).
  memory.push_back(measured_branch(2, 0, vocabulary::branch_kind::branch, vocabulary::branch_outcome::not_run));
  memory.push_back(measured_branch(2, 1, vocabulary::branch_kind::branch));
  auto fresh = tiled_code;
  fresh.replace(fresh.find("T_DIM + 1]"), 10, "T_DIM + 2]");
  auto third_model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"padded", fresh}, {"padded_twice", fresh}})}});
  request = ask(3, memory);
  request.first_ordinal = 0;
  auto third = llm_proposer{counted(third_model)}.propose(request);
  ASSERT_TRUE(third) << third.error();
  const auto& prompt = third_model->requests.at(0).messages.back().text;
  EXPECT_NE(prompt.find("## You repeated yourself"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- tiled_again (iteration 2) repeated tiled (iteration 1, branch 1)"), std::string::npos)
    << prompt;
  ASSERT_EQ(third->candidates.size(), 2u);
  EXPECT_FALSE(third->candidates[0].duplicate_of);
  ASSERT_TRUE(third->candidates[1].duplicate_of);
  EXPECT_EQ(*third->candidates[1].duplicate_of, (branch_place{3, 0}));
  EXPECT_EQ(compiles->load(), 3);
  // The prompt of a round after one without repeats has no such section.
  EXPECT_EQ(second_model->requests.at(0).messages.back().text.find("You repeated yourself"), std::string::npos);
}

TEST_F(LlmProposerTest, TheModelIsToldItsCodeGetsItsOwnDefinesAndNotTheProblemsTunables) {
  auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
    {"propose", envelope({{"tiled", tiled_code}})}});
  ASSERT_TRUE(llm_proposer{context(model)}.propose(ask(1)));
  std::string system;
  for (const auto& b : model->requests.at(0).system)
    system += b.text;
  EXPECT_NE(system.find("compiled with the `defines` they declare and no others: the problem's tunables "
                        "(USE_SMEM_TILE, TILE, BLOCK_ROWS, PAD) are passed to its own kernel, not to yours"),
            std::string::npos)
    << system;
}

TEST_F(LlmProposerTest, ABranchThatCameToNothingMayBeProposedAgain) {
  auto first = llm_proposer{context(std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
                              {"propose", envelope({{"tiled", tiled_code}})}}))}
                 .propose(ask(1));
  ASSERT_TRUE(first) << first.error();
  ASSERT_TRUE(write_proposal(run_dir, "transpose", 1, *first));
  auto second_round = [&](vocabulary::branch_outcome earlier) {
    auto model = std::make_shared<scripted_model>(std::vector<scripted_model::turn>{
      {"propose", envelope({{"tiled", tiled_code}})}});
    auto made = llm_proposer{context(model)}.propose(
      ask(2, {measured_branch(1, 0, vocabulary::branch_kind::baseline),
              measured_branch(1, 1, vocabulary::branch_kind::branch, earlier)}));
    EXPECT_TRUE(made) << made.error();
    return made && made->candidates.size() == 1 ? made->candidates[0].duplicate_of : std::nullopt;
  };
  // Branch 1 of iteration 1 was never run (its GPU went away): the same kernel is measured now.
  EXPECT_FALSE(second_round(vocabulary::branch_outcome::not_run));
  EXPECT_EQ(second_round(vocabulary::branch_outcome::passed), (branch_place{1, 1}));
  EXPECT_EQ(second_round(vocabulary::branch_outcome::compile_error), (branch_place{1, 1}))
    << "it came to an outcome: the same code fails the same way";
}

} // namespace
} // namespace warpforge::pipeline
