// What the model is told, held in review: the recorded conversations of tests/llm/fixtures (the
// scripted replies of the transpose and SGEMM jobs) replayed through the real llm proposer, and
// every request it makes rendered as text and compared byte for byte with the golden files in
// tests/llm/fixtures/<problem>/golden/. A change to the rules, the reply format, the diagnosis
// section, the memory or the task text shows up as a diff of those files in the review.
//
// Deterministic by construction: fixed metrics (tests/diagnosis/metric_sets.hpp) on a fixed H100,
// fixed times, a stand-in compiler with a fixed log (NVRTC's own wording changes between
// versions), a model that answers from the fixtures; no timestamps, and no absolute path may
// appear in a prompt (checked).
//
// On a mismatch the test prints a unified diff. To accept a change, regenerate and review:
//   WARPFORGE_UPDATE_GOLDEN=1 build/tests/pipeline/pipeline_tests --gtest_filter='PromptSnapshot.*'
//   git diff tests/llm/fixtures/*/golden

#include "pipeline/llm/proposer.hpp"

#include "llm/prompt/prompt.hpp"
#include "llm/reply/parse.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/llm/transcripts.hpp"
#include "pipeline/records.hpp"
#include "tests/diagnosis/metric_sets.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;

const fs::path fixtures = fs::path{WARPFORGE_SOURCE_DIR} / "tests" / "llm" / "fixtures";

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool updating() {
  const char* update = std::getenv("WARPFORGE_UPDATE_GOLDEN");
  return update != nullptr && std::string{update} == "1";
}

// A model that answers from a recorded conversation, in order, and keeps every request.
class recorded_model final : public llm::chat_client {
public:
  struct turn {
    std::string purpose;
    expected<std::string, llm::chat_error> reply;
  };
  explicit recorded_model(std::vector<turn> script) : script_(script.begin(), script.end()) {}

  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override {
    std::lock_guard lock{mutex_};
    requests.push_back(request);
    if (script_.empty()) {
      ADD_FAILURE() << "a request the conversation does not hold: " << request.purpose;
      return unexpected{llm::chat_error{llm::chat_error_kind::config, "not recorded", std::nullopt, 0}};
    }
    auto next = std::move(script_.front());
    script_.pop_front();
    EXPECT_EQ(request.purpose, next.purpose);
    if (!next.reply)
      return unexpected{next.reply.error()};
    llm::chat_reply r;
    r.text = *next.reply;
    r.model = request.model;
    return r;
  }
  bool done() const { return script_.empty(); }
  std::vector<llm::chat_request> requests;

private:
  std::deque<turn> script_;
  std::mutex mutex_;
};

expected<std::string, llm::chat_error> no_answer() {
  return unexpected{llm::chat_error{llm::chat_error_kind::network, "no reply recorded", std::nullopt, 1}};
}

// One request as the model receives it: the system blocks (the cached prefix marked) and the
// messages, in order.
std::string rendered(const llm::chat_request& request) {
  std::string out = "=== purpose: " + request.purpose + "\n";
  for (std::size_t i = 0; i < request.system.size(); ++i)
    out += "=== system block " + std::to_string(i + 1) + (request.system[i].cache ? " (cached prefix ends here)" : "") +
           "\n" + request.system[i].text + (request.system[i].text.ends_with('\n') ? "" : "\n");
  for (const auto& m : request.messages)
    out += std::string{"=== "} + (m.who == llm::role::user ? "user" : "assistant") + "\n" + m.text +
           (m.text.ends_with('\n') ? "" : "\n");
  return out;
}

// `diff -u` of the golden file and what was rendered, for the failure message.
std::string unified_diff(const fs::path& golden, const std::string& actual, const fs::path& scratch) {
  const auto actual_file = scratch / (golden.filename().string() + ".actual");
  std::ofstream{actual_file, std::ios::binary} << actual;
  const auto command = "diff -u '" + golden.string() + "' '" + actual_file.string() + "' 2>&1";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0 && out.size() < 200000;)
      out.append(chunk, n);
    ::pclose(pipe);
  }
  return out.empty() ? "(diff gave nothing: compare " + golden.string() + " with " + actual_file.string() + ")" : out;
}

// The problem's fixed numbers: its profile (the recorded metric set) and times.
struct problem_script {
  std::string job;               // the example's name and its fixtures folder
  std::string entry;
  recorded_model::turn judge;    // what the round's judge request is answered
  diagnosis::metric_values metrics;
  double baseline_s;
  double champion_s;
  std::string compile_error_kernel; // kernels/<file> NVRTC is made to reject, with this log
  std::string compile_log;
  std::string incorrect_report;     // the comparison report of the wrong variant
};

gpu::device_info h100() {
  const auto p = diagnosis::testing::h100_sxm_device();
  gpu::device_info d;
  d.ordinal = 0;
  d.name = p.name;
  d.sm_major = 9;
  d.sm_minor = 0;
  d.sm_count = p.sm_count;
  d.sm_clock_khz = p.sm_clock_khz;
  d.memory_clock_khz = p.memory_clock_khz;
  d.memory_bus_width_bits = p.memory_bus_width_bits;
  d.l2_bytes = p.l2_bytes;
  return d;
}

class PromptSnapshot : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("wf-prompt-snapshot-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    run_dir = root / "run";
    fs::create_directories(run_dir);
  }
  void TearDown() override { fs::remove_all(root); }

  llm_context context(std::shared_ptr<llm::chat_client> model, const problem_script& p) const {
    llm_context c;
    c.llm.model = "recorded";
    c.llm.judge = true;
    c.patterns_file = root / "patterns.json"; // empty: no pattern library from other runs
    const auto rejected = read_text(fixtures / p.job / "kernels" / p.compile_error_kernel);
    c.compile = [rejected, log = p.compile_log](const gpu::compile_request& r) -> gpu::compile_result {
      if (r.source == rejected)
        return unexpected{gpu::compile_failure{gpu::compile_failure_kind::compile_error, r.source_name + log}};
      return gpu::compiled_kernel{};
    };
    c.model = std::move(model);
    return c;
  }

  propose_request ask(const problem_script& p, std::int64_t iteration, std::vector<attempt> memory,
                      candidate best, double best_s, std::int64_t first_ordinal) const {
    propose_request r;
    r.job = p.job;
    r.problem_path = WARPFORGE_SOURCE_DIR "/examples/" + p.job + "/problem.toml";
    r.iteration = iteration;
    r.branches = 4;
    r.current_best = std::move(best);
    r.best_s = best_s;
    // The current best's profile, kept where the engine keeps it (its branch's folder).
    const branch_ref of{"snapshot", p.job, iteration, 0};
    gpu::metric_set metrics;
    metrics.source = gpu::metric_source::cupti;
    for (const auto& [key, value] : p.metrics)
      metrics.values.push_back({key, value});
    EXPECT_TRUE(write_metric_file(branch_folder(run_dir, p.job, of.iteration, of.branch) / "metrics-gpu0.json",
                                  {metrics, h100()}));
    r.diagnosis = summarize_metrics(metrics, h100(), of);
    r.memory = std::move(memory);
    r.first_ordinal = first_ordinal;
    r.run_dir = run_dir.string();
    r.arch = "sm_90";
    return r;
  }

  // The conversation of three iterations: the first proposes (a variant NVRTC rejects is repaired
  // within the round); the second repairs the variant that failed correctness and gets the first
  // reply again (the model repeating itself: its variants are recorded as repeats, not measured);
  // the third is told which variants repeated which branch.
  std::vector<llm::chat_request> replay(const problem_script& p) {
    using vocabulary::branch_kind;
    using vocabulary::branch_outcome;
    const auto reply = [&](const std::string& file) { return read_text(fixtures / p.job / file); };
    auto model = std::make_shared<recorded_model>(std::vector<recorded_model::turn>{
      p.judge,
      {"propose", reply("iter1.reply.txt")},
      {"fix_compile", reply("fix_compile.reply.txt")},
      p.judge,
      {"fix_correctness", reply("fix_wrong.reply.txt")},
      {"propose", reply("iter1.reply.txt")},
      {"fix_compile", reply("fix_compile.reply.txt")},
      p.judge,
      {"propose", no_answer()}, // the recording ends here: the prompt is what is compared
    });
    llm_proposer proposer{context(model, p)};
    std::vector<attempt> memory{{1, branch_kind::baseline, {}, {}, branch_outcome::passed, p.baseline_s, "baseline", 0}};
    auto first = proposer.propose(ask(p, 1, memory, {}, p.baseline_s, 1));
    EXPECT_TRUE(first) << (first ? "" : first.error());
    if (!first || first->candidates.size() < 3)
      return model->requests;
    EXPECT_TRUE(write_proposal(run_dir, p.job, 1, *first));

    // Iteration 1 as the engine would have recorded it (the baseline is branch 0, the variants
    // follow): the first variant the champion, the repaired one not a clear gain, the wrong one
    // incorrect, then the champion's leave-one-outs.
    const auto& champion = first->candidates[0];
    std::int64_t ordinal = 1;
    for (std::size_t k = 0; k < first->candidates.size(); ++k, ++ordinal) {
      const auto& c = first->candidates[k];
      if (k == 0)
        memory.push_back({1, branch_kind::branch, {}, c.methods, branch_outcome::passed, p.champion_s,
                          "ACCEPTED: the new best", ordinal, tuning::branch_verdict::accepted});
      else if (k + 1 == first->candidates.size()) // the fixtures' last variant is the wrong one
        memory.push_back({1, branch_kind::branch, {}, c.methods, branch_outcome::incorrect, std::nullopt,
                          p.incorrect_report, ordinal, tuning::branch_verdict::failed});
      else
        memory.push_back({1, branch_kind::branch, {}, c.methods, branch_outcome::passed, p.champion_s * 1.01,
                          "REJECTED: within the noise of the best", ordinal, tuning::branch_verdict::rejected});
    }
    for (const auto& a : champion.ablations)
      memory.push_back({1, branch_kind::ablation, {}, a.methods, branch_outcome::passed, p.champion_s * 1.6,
                        "effective: 1.60x slower without it", ordinal++, std::nullopt});

    auto second = proposer.propose(ask(p, 2, memory, champion, p.champion_s, 0));
    EXPECT_TRUE(second) << (second ? "" : second.error());
    if (!second || second->candidates.empty())
      return model->requests;
    EXPECT_TRUE(write_proposal(run_dir, p.job, 2, *second));
    // Iteration 2: the repair not a clear gain; the repeats never built (planned ended not_run).
    std::size_t repeats = 0;
    for (std::size_t k = 0; k < second->candidates.size(); ++k) {
      const auto& c = second->candidates[k];
      if (c.duplicate_of) {
        ++repeats;
        memory.push_back({2, branch_kind::branch, {}, c.methods, branch_outcome::not_run, std::nullopt,
                          "FAILED: a repeat of an earlier branch: not measured again", static_cast<std::int64_t>(k),
                          tuning::branch_verdict::failed});
      } else {
        memory.push_back({2, branch_kind::branch, {}, c.methods, branch_outcome::passed, p.champion_s * 1.02,
                          "REJECTED: within the noise of the best", static_cast<std::int64_t>(k),
                          tuning::branch_verdict::rejected});
      }
    }
    EXPECT_EQ(repeats, first->candidates.size()) << "every variant of the repeated reply is a repeat";
    auto third = proposer.propose(ask(p, 3, memory, champion, p.champion_s, 0));
    EXPECT_TRUE(third) << (third ? "" : third.error());
    EXPECT_TRUE(model->done()) << "every recorded reply was asked for";
    return model->requests;
  }

  // Each request against tests/llm/fixtures/<job>/golden/<NN>-<purpose>.prompt.txt.
  void compare(const problem_script& p, const std::vector<llm::chat_request>& requests) {
    const auto golden = fixtures / p.job / "golden";
    if (updating()) {
      fs::remove_all(golden);
      fs::create_directories(golden);
    }
    std::size_t n = 0;
    for (const auto& request : requests) {
      char number[8];
      std::snprintf(number, sizeof number, "%02zu", ++n);
      const auto file = golden / (std::string{number} + "-" + request.purpose + ".prompt.txt");
      const auto text = rendered(request);
      EXPECT_EQ(text.find(WARPFORGE_SOURCE_DIR), std::string::npos) << file.filename() << " names the source tree";
      EXPECT_EQ(text.find(root.string()), std::string::npos) << file.filename() << " names the run directory";
      if (updating()) {
        std::ofstream{file, std::ios::binary} << text;
        continue;
      }
      ASSERT_TRUE(fs::exists(file)) << file << " is missing; regenerate with WARPFORGE_UPDATE_GOLDEN=1 and review";
      EXPECT_TRUE(read_text(file) == text)
        << "what the model is told changed (" << file.filename().string() << "):\n"
        << unified_diff(file, text, root)
        << "\nIf the change is intended: WARPFORGE_UPDATE_GOLDEN=1 build/tests/pipeline/pipeline_tests "
           "--gtest_filter='PromptSnapshot.*', then review git diff tests/llm/fixtures";
    }
    if (!updating()) { // a golden file no request matches any more is stale
      std::size_t files = 0;
      for (const auto& entry : fs::directory_iterator{golden})
        files += entry.path().string().ends_with(".prompt.txt") ? 1 : 0;
      EXPECT_EQ(files, requests.size()) << "golden files in " << golden << " against requests made";
    }
  }

  fs::path root, run_dir;
};

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// Issue 26: the rules said "keep parameter names, no printf" and a leave-one-out for every claimed
// method, while the reply format said "names may change", "printf needs no include" and ablations
// "when asked for". One place states each rule now, and the others refer to it.
TEST(PromptRules, TheRulesTheReplyFormatAndTheTaskSayTheSameAboutAblationsNamesAndPrintf) {
  auto skills = llm::skill_library::built_in();
  ASSERT_TRUE(skills) << skills.error();
  llm::prompt_inputs in;
  in.reply_format = std::string{llm::envelope_instructions()};
  in.k = 4;
  const auto prompt = llm::build_propose_prompt(in, *skills);
  const auto& told = prompt.stable.front(); // the rules and the reply format
  EXPECT_EQ(occurrences(told, "printf"), 1u) << "stated once, by rule 2";
  EXPECT_NE(told.find("no printf"), std::string::npos);
  EXPECT_EQ(occurrences(told, "parameter names may change"), 1u);
  EXPECT_EQ(told.find("names)"), std::string::npos) << "no rule keeps the parameter names";
  EXPECT_EQ(told.find("when asked for"), std::string::npos) << "ablations are owed, not asked for case by case";
  const auto rule9 = told.find("9. Leave-one-out ablations.");
  ASSERT_NE(rule9, std::string::npos);
  EXPECT_NE(told.find("two or more methods", rule9), std::string::npos);
  const auto format = told.find("# Reply format");
  ASSERT_NE(format, std::string::npos);
  EXPECT_NE(told.find("(rule 9)", format), std::string::npos) << "the reply format refers to the rule";
  EXPECT_NE(prompt.changing.find("For each variant claiming N >= 2 methods, give its N leave-one-out versions"),
            std::string::npos)
    << prompt.changing;
}

const recorded_model::turn unanswered_judge{"judge", no_answer()};

TEST_F(PromptSnapshot, TheTransposeConversationTellsTheModelWhatTheGoldenFilesHold) {
  const problem_script transpose{
    "transpose", "transpose", unanswered_judge, diagnosis::testing::naive_transpose(), 412.5e-6, 251.0e-6,
    "tile_pad_compile_error.cu", "(23): error: identifier \"tile_row\" is undefined\n\n1 error detected in the compilation.",
    "FAILED: incorrect: out: 66060288 of 67108864 elements differ; first at [1]: got 0.25, expected 8192.25"};
  const auto requests = replay(transpose);
  ASSERT_EQ(requests.size(), 9u);
  // A ratio metric is told as the percentage it is (0.5512 of DRAM's peak is 55.12 %, not 0.5512 %).
  const auto& round = requests[1].messages.front().text;
  EXPECT_NE(round.find("- dram_throughput = 55.12 %\n"), std::string::npos) << round.substr(round.find("Key metrics"), 400);
  EXPECT_NE(round.find("- global_store_efficiency = 12.5 %\n"), std::string::npos);
  compare(transpose, requests);
}

TEST_F(PromptSnapshot, TheSgemmConversationTellsTheModelWhatTheGoldenFilesHold) {
  const problem_script sgemm{
    "sgemm", "sgemm", unanswered_judge, diagnosis::testing::naive_sgemm_2048(), 9800.0e-6, 1450.0e-6,
    "regtile_compile_error.cu", "(61): error: identifier \"b_frg\" is undefined\n\n1 error detected in the compilation.",
    "FAILED: incorrect: c: 4190208 of 4194304 elements differ; first at [1]: got 511.2, expected 498.7"};
  const auto requests = replay(sgemm);
  ASSERT_EQ(requests.size(), 9u);
  compare(sgemm, requests);
}

} // namespace
} // namespace warpforge::pipeline
