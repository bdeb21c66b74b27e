// The built-in tuner behind the proposer seam, on the transpose example's real search space.

#include "pipeline/tune_proposer.hpp"

#include "tuning/point_text.hpp"

#include <gtest/gtest.h>

namespace warpforge::pipeline {
namespace {

const std::string transpose = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";

propose_request ask(std::int64_t iteration, std::vector<attempt> memory) {
  propose_request r;
  r.job = "transpose";
  r.problem_path = transpose;
  r.iteration = iteration;
  r.branches = 4;
  r.memory = std::move(memory);
  return r;
}

// What a job would record for a proposal: every point passed, timed by a fixed rule.
std::vector<attempt> recorded(const proposal& p, std::int64_t iteration) {
  std::vector<attempt> out;
  for (const auto& c : p.candidates) {
    attempt a;
    a.iteration = iteration;
    a.point = c.point;
    a.methods = c.methods;
    a.outcome = vocabulary::branch_outcome::passed;
    a.median_s = 1e-3 / static_cast<double>(1 + c.point.at("TILE") + 3 * c.point.at("USE_SMEM_TILE"));
    out.push_back(a);
  }
  return out;
}

std::vector<std::string> texts(const proposal& p) {
  std::vector<std::string> out;
  for (const auto& c : p.candidates)
    out.push_back(tuning::canonical_text(c.point));
  return out;
}

// The transpose example's default point: its baseline.
attempt measured_baseline() {
  attempt baseline;
  baseline.iteration = 1;
  baseline.kind = vocabulary::branch_kind::baseline;
  baseline.point = {{"USE_SMEM_TILE", 0}, {"TILE", 32}, {"BLOCK_ROWS", 8}, {"PAD", 0}};
  baseline.outcome = vocabulary::branch_outcome::passed;
  baseline.median_s = 1e-3;
  return baseline;
}

TEST(TuneProposer, EachCandidateClaimsItsTunablesMethodsWithTheirLeaveOneOutVariants) {
  tune_proposer proposer{config::search_strategy::exhaustive, 1};
  auto request = ask(1, {measured_baseline()});
  request.branches = 32; // the whole space: some points use the shared tile, some do not
  auto p = proposer.propose(request);
  ASSERT_TRUE(p) << p.error();
  ASSERT_GT(p->candidates.size(), 4u);
  bool saw_ablation = false;
  for (const auto& c : p->candidates) {
    EXPECT_EQ(c.methods.size() >= c.ablations.size(), true);
    for (const auto& a : c.ablations) {
      saw_ablation = true;
      EXPECT_EQ(a.kind, vocabulary::branch_kind::ablation);
      ASSERT_EQ(a.methods.size(), 1u);
      EXPECT_NE(a.point, c.point) << "leaving a method out changes the point";
    }
  }
  EXPECT_TRUE(saw_ablation);
}

TEST(TuneProposer, AFreshProposerGivenTheMemoryProposesWhatTheLongLivedOneDid) {
  // One proposer kept for three iterations, as in an undisturbed campaign...
  tune_proposer kept{config::search_strategy::annealing, 42};
  std::vector<attempt> memory;
  std::vector<std::vector<std::string>> proposals;
  for (std::int64_t iteration = 1; iteration <= 3; ++iteration) {
    auto p = kept.propose(ask(iteration, memory));
    ASSERT_TRUE(p) << p.error();
    proposals.push_back(texts(*p));
    for (auto& a : recorded(*p, iteration))
      memory.push_back(a);
  }
  // ...and one started afresh for iteration 3 (a restarted proposer actor, a resumed campaign).
  tune_proposer fresh{config::search_strategy::annealing, 42};
  std::vector<attempt> before_three;
  for (const auto& a : memory)
    if (a.iteration < 3)
      before_three.push_back(a);
  auto p = fresh.propose(ask(3, before_three));
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(texts(*p), proposals[2]);
  // And asking the same iteration twice gives the same answer.
  auto again = fresh.propose(ask(3, before_three));
  ASSERT_TRUE(again);
  EXPECT_EQ(texts(*again), proposals[2]);
}

// The first proposal is asked while the baseline races (first_proposal_of): it must not depend
// on the baseline's outcome, nor ever propose the baseline's own point, and a proposer rebuilt
// later from the whole memory must replay it as it was.
TEST(TuneProposer, TheFirstProposalReadsNoTimeNeverProposesTheBaselineAndIsReplayedAsItWas) {
  EXPECT_EQ(first_proposal_of(config::proposer_kind::tune), first_proposal::while_baseline_races);
  EXPECT_EQ(first_proposal_of(config::proposer_kind::llm), first_proposal::after_baseline);
  const auto baseline = measured_baseline();
  const auto baseline_text = tuning::canonical_text(baseline.point);
  attempt known_invalid; // from an earlier run: in the memory before anything else
  known_invalid.iteration = 0;
  known_invalid.point = {{"USE_SMEM_TILE", 1}, {"TILE", 32}, {"BLOCK_ROWS", 32}, {"PAD", 1}};
  known_invalid.outcome = vocabulary::branch_outcome::compile_error;
  for (const auto strategy : {config::search_strategy::exhaustive, config::search_strategy::random,
                              config::search_strategy::annealing}) {
    SCOPED_TRACE(std::string{config::to_string(strategy)});
    // Asked ahead: the baseline is the best, with no time and no memory entry.
    tune_proposer ahead{strategy, 7};
    auto first_request = ask(1, {known_invalid});
    first_request.current_best.point = baseline.point;
    auto first = ahead.propose(first_request);
    ASSERT_TRUE(first) << first.error();
    ASSERT_EQ(first->candidates.size(), 4u);
    for (const auto& text : texts(*first)) {
      EXPECT_NE(text, baseline_text) << "the baseline's own point";
      EXPECT_NE(text, tuning::canonical_text(known_invalid.point)) << "a point known invalid";
    }
    // Asked after the baseline (a resume that lost the proposal): the same points.
    tune_proposer after{strategy, 7};
    auto late_request = ask(1, {known_invalid, baseline});
    late_request.current_best.point = baseline.point;
    late_request.best_s = baseline.median_s;
    auto late = after.propose(late_request);
    ASSERT_TRUE(late) << late.error();
    EXPECT_EQ(texts(*late), texts(*first)) << "the first proposal must not read the baseline's time";
    // The second proposal: the long-lived proposer is sent what it does not hold; a fresh one
    // gets the whole memory and rebuilds. They agree.
    EXPECT_EQ(first->memory_held, 1) << "it holds the earlier run's entry";
    std::vector<attempt> memory{known_invalid, baseline};
    for (auto& a : recorded(*first, 1))
      memory.push_back(a);
    auto delta = ask(2, memory); // the long-lived proposer is sent what it does not hold
    delta.memory_from = first->memory_held;
    delta.memory.erase(delta.memory.begin(), delta.memory.begin() + first->memory_held);
    auto second = ahead.propose(delta);
    ASSERT_TRUE(second) << second.error();
    ASSERT_FALSE(second->resend_memory_from);
    tune_proposer fresh{strategy, 7};
    auto rebuilt = fresh.propose(ask(2, memory));
    ASSERT_TRUE(rebuilt) << rebuilt.error();
    EXPECT_EQ(texts(*rebuilt), texts(*second));
    for (const auto& text : texts(*second))
      EXPECT_NE(text, baseline_text);
  }
}

TEST(TuneProposer, AProblemThatDoesNotLoadIsAnErrorNamingIt) {
  tune_proposer proposer{config::search_strategy::random, 1};
  auto r = ask(1, {});
  r.problem_path = "/no/such/problem.toml";
  auto p = proposer.propose(r);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().find("/no/such/problem.toml"), std::string::npos) << p.error();
}

} // namespace
} // namespace warpforge::pipeline
