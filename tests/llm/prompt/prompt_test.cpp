#include "llm/prompt/prompt.hpp"

#include "prompt_inputs.hpp"

#include <gtest/gtest.h>

using namespace warpforge::llm;
using warpforge::llm::testing::transpose_inputs;

namespace {

const skill_library& skills() {
  static const auto library = *skill_library::built_in();
  return library;
}

/// A fired skill as the changing part spells it: its summary as a heading, then the rest.
std::string playbook(std::string_view id) {
  const auto* s = skills().find(id);
  return "### " + std::string{id} + ": " + s->summary + "\n" + s->text.substr(s->text.find('\n') + 1);
}

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::string all_stable(const prompt& p) {
  std::string out;
  for (const auto& block : p.stable)
    out += block;
  return out;
}

/// The same job one round later: a new best, a new diagnosis, more attempts, a judge verdict,
/// failures to learn from and ablations wanted.
prompt_inputs a_later_round() {
  auto in = transpose_inputs();
  in.best_source = "extern \"C\" __global__ void transpose_kernel(const float* in, float* out, int rows, int cols) "
                   "{ /* TILED_BODY */ }\n";
  in.best_us = 165.0;
  in.diagnosis->fired = {{"bank_conflicts", "warning", "Bank conflicts: 32-way."}};
  in.this_run.push_back({2, "b1", {"memory.tiling_smem", "memory.bank_conflict"}, attempt_verdict::rejected, "slower", 2.4, ""});
  in.judge = judge_verdict{{"smem_bank_conflicts", "32-way conflicts on the tile", {{"dram_throughput", 62}}},
                           {"dram_bandwidth", "stores", {{"dram_bytes", 2.684e8}}}};
  in.fixes = {{"b3", fix_request::kind::compile, "code", "error: identifier TILE undefined", 2}};
  in.ablations_wanted = {"memory.tiling_smem"};
  return in;
}

} // namespace

TEST(ProposePrompt, TwoRoundsOfOneJobShareByteIdenticalStableBlocks) {
  const auto first = build_propose_prompt(transpose_inputs(), skills());
  const auto later = build_propose_prompt(a_later_round(), skills());
  ASSERT_EQ(first.stable.size(), 3u);
  EXPECT_EQ(first.stable, later.stable);
  EXPECT_NE(first.changing, later.changing);
  // A fix re-ask of the same job hits the same cached prefix.
  const auto fix = build_fix_prompt(a_later_round(), a_later_round().fixes[0], skills());
  EXPECT_EQ(fix.stable, first.stable);
}

TEST(ProposePrompt, TheRulesBlockIsTheSameForEveryJobOfACampaign) {
  auto other = transpose_inputs();
  other.gpu.name = "NVIDIA A100 SXM4 80GB";
  other.problem.name = "sgemm";
  other.methods.pop_back();
  other.past_runs = "other memory";
  const auto a = build_propose_prompt(transpose_inputs(), skills());
  const auto b = build_propose_prompt(other, skills());
  EXPECT_EQ(a.stable[0], b.stable[0]);
  EXPECT_NE(a.stable[1], b.stable[1]);
  EXPECT_NE(a.stable[2], b.stable[2]);
}

TEST(ProposePrompt, StableBlocksHoldRulesThenTheJobThenFrozenMemoryAndNothingOfTheRound) {
  const auto p = build_propose_prompt(a_later_round(), skills());
  ASSERT_EQ(p.stable.size(), 3u);
  EXPECT_TRUE(has(p.stable[0], "senior CUDA performance engineer"));
  EXPECT_TRUE(has(p.stable[0], "REPLY_FORMAT_MARKER"));
  EXPECT_TRUE(has(p.stable[1], "NVIDIA H100 SXM5 80GB (sm_90)"));
  EXPECT_TRUE(has(p.stable[1], "- Peak DRAM bandwidth: 3350 GB/s"));
  EXPECT_TRUE(has(p.stable[1], "Entry point: extern \"C\" __global__ void transpose_kernel(const float*, float*, int, int)\n"));
  EXPECT_TRUE(has(p.stable[1], "rows = 8192; cols = 4096"));
  EXPECT_TRUE(has(p.stable[1], "grid (cols/32, rows/8), block (32, 8)"));
  EXPECT_TRUE(has(p.stable[1], "atol 0, rtol 0"));
  EXPECT_TRUE(has(p.stable[1], "- memory.tiling_smem: Shared-memory tiling"));
  EXPECT_TRUE(has(p.stable[1], skills().catalogue()));
  EXPECT_TRUE(has(p.stable[2], "PAST_RUNS_MARKER"));
  EXPECT_TRUE(has(p.stable[2], "PATTERNS_MARKER"));
  const auto stable = all_stable(p);
  for (auto round_only : {"TILED_BODY", "FIRST_ATTEMPT_WHY", "Bank conflicts: 32-way.", "identifier TILE undefined",
                          "32-way conflicts on the tile", "165 us", "K = 4"})
    EXPECT_FALSE(has(stable, round_only)) << round_only;
}

TEST(ProposePrompt, TheEntryPointLineShowsTheKernelsOwnFormAndItsInstantiation) {
  auto in = transpose_inputs();
  in.problem.entry = "MatrixMulCUDA";
  in.problem.declaration = "template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float*, float*, float*, int, int)";
  in.problem.instantiation = "MatrixMulCUDA<32>";
  EXPECT_TRUE(has(build_propose_prompt(in, skills()).stable[1],
                  "Entry point: template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float*, float*, float*, int, "
                  "int), compiled and launched as MatrixMulCUDA<32>\n"));
  in.problem.entry = "transposeNaive";
  in.problem.declaration = "__global__ void transposeNaive(float*, float*, int, int)";
  in.problem.instantiation = "";
  const auto cxx = build_propose_prompt(in, skills()).stable[1];
  EXPECT_TRUE(has(cxx, "Entry point: __global__ void transposeNaive(float*, float*, int, int)\n")) << cxx;
}

TEST(ProposePrompt, TheChangingPartCarriesTheRoundInOrder) {
  const auto p = build_propose_prompt(a_later_round(), skills());
  const auto& c = p.changing;
  const auto best = c.find("TILED_BODY"), diagnosis = c.find("Bank conflicts: 32-way."),
             judge = c.find("## Judge's analysis"), fired = c.find(playbook("bank_conflicts")),
             attempts = c.find("FIRST_ATTEMPT_WHY"), fixes = c.find("identifier TILE undefined"),
             ablations = c.find("- memory.tiling_smem\n"), task = c.find("## Task\nWrite K = 4");
  for (auto at : {best, diagnosis, judge, fired, attempts, fixes, ablations, task})
    ASSERT_NE(at, std::string::npos) << c;
  EXPECT_LT(best, diagnosis);
  EXPECT_LT(diagnosis, judge);
  EXPECT_LT(judge, fired);
  EXPECT_LT(fired, attempts);
  EXPECT_LT(attempts, fixes);
  EXPECT_LT(fixes, ablations);
  EXPECT_LT(ablations, task);
  EXPECT_TRUE(has(c, "Time: 165 us (baseline 412.5 us, 2.50x the baseline's speed)"));
  EXPECT_TRUE(has(c, "iter 2 b1 [memory.tiling_smem + memory.bank_conflict]: REJECTED"));
  EXPECT_FALSE(has(c, "PAST_RUNS_MARKER"));
  EXPECT_FALSE(has(c, "REPLY_FORMAT_MARKER"));
}

TEST(ProposePrompt, TheDiagnosisShowsBudgetFindingsMetricsAsPercentAndCandidates) {
  const auto c = build_propose_prompt(transpose_inputs(), skills()).changing;
  EXPECT_TRUE(has(c, "Bottleneck: memory_bound"));
  EXPECT_TRUE(has(c, "- gap compute 0.97, memory 0.38, latency 0.41"));
  EXPECT_TRUE(has(c, "compute 0, memory 2, latency 1\n"));
  EXPECT_TRUE(has(c, "### Speed of light\n- dram_throughput = 62 %\n- sm_throughput = 8 %\n"));
  EXPECT_TRUE(has(c, "### Memory\n- dram_bytes = 2.684e+08 bytes\n- global_store_efficiency = 12.5 %\n"));
  // Given info, warning, critical: shown most severe first.
  EXPECT_TRUE(has(c, "Fired findings, most severe first:\n- [critical] memory_bound: Memory-bound: memory throughput is 62% "
                     "of peak.\n- [warning] poor_coalescing: Uncoalesced global access: stores use 12.5% of each "
                     "sector.\n- [info] low_l1_hit: Low L1 hit rate: 12%.\n"));
  EXPECT_TRUE(has(c, "memory.coalesced_access, memory.tiling_smem\n"));
}

TEST(ProposePrompt, OnlyTheFiredSkillsAreSpelledOutMostSevereFirst) {
  const auto c = build_propose_prompt(transpose_inputs(), skills()).changing;
  const auto memory = c.find(playbook("memory_bound"));
  const auto coalescing = c.find(playbook("poor_coalescing"));
  const auto l1 = c.find(playbook("low_l1_hit"));
  ASSERT_NE(memory, std::string::npos);
  ASSERT_NE(coalescing, std::string::npos);
  ASSERT_NE(l1, std::string::npos);
  EXPECT_LT(memory, coalescing);
  EXPECT_LT(coalescing, l1);
  EXPECT_FALSE(has(c, playbook("stall_barrier")));
  EXPECT_TRUE(has(c, "## Playbooks for the fired findings\n### memory_bound: "));
}

TEST(ProposePrompt, WithoutFrozenMemoryThereAreTwoStableBlocksAndNoDiagnosisIsSaid) {
  auto in = transpose_inputs();
  in.past_runs.clear();
  in.patterns.clear();
  in.diagnosis.reset();
  in.this_run.clear();
  const auto p = build_propose_prompt(in, skills());
  EXPECT_EQ(p.stable.size(), 2u);
  EXPECT_TRUE(has(p.changing, "Not profiled"));
  EXPECT_FALSE(has(p.changing, "## Playbooks for the fired findings"));
  EXPECT_TRUE(has(p.changing, "## This run's attempts\nnone yet\n"));
  EXPECT_FALSE(has(p.changing, "Leave-one-out"));
  in.patterns = "ONLY_PATTERNS";
  const auto with_patterns = build_propose_prompt(in, skills());
  ASSERT_EQ(with_patterns.stable.size(), 3u);
  EXPECT_EQ(with_patterns.stable[2], "## Patterns that worked on other kernels\nONLY_PATTERNS\n");
}

TEST(FixPrompt, ACompileFixCarriesTheCodeTheLogAndEarlierTriesOfThatVariantOnly) {
  auto in = transpose_inputs();
  in.this_run.push_back({1, "b3", {"compute.loop_unroll"}, attempt_verdict::failed, "ROUND_1_B3", std::nullopt, ""});
  in.this_run.push_back({2, "b3", {"memory.tiling_smem"}, attempt_verdict::failed, "B3_FIRST_TRY", std::nullopt, ""});
  const fix_request fix{"b3", fix_request::kind::compile, "VARIANT_CODE();", "kernel.cu(3): error: TILE undefined", 2};
  const auto p = build_fix_prompt(in, fix, skills());
  EXPECT_TRUE(has(p.changing, "## Variant to fix: b3 (compile error)"));
  EXPECT_TRUE(has(p.changing, "NVRTC rejected this variant"));
  EXPECT_TRUE(has(p.changing, "```cuda\nVARIANT_CODE();\n```"));
  EXPECT_TRUE(has(p.changing, "### The compiler log\n```text\nkernel.cu(3): error: TILE undefined\n```"));
  EXPECT_TRUE(has(p.changing, "B3_FIRST_TRY"));
  EXPECT_FALSE(has(p.changing, "FIRST_ATTEMPT_WHY")) << "another variant's attempt";
  EXPECT_FALSE(has(p.changing, "ROUND_1_B3")) << "the same name in another round";
  EXPECT_FALSE(has(p.changing, "NAIVE_BODY")) << "a compile fix needs no reference kernel";
  EXPECT_TRUE(has(p.changing, "Return the corrected variant b3 as the only variant"));
}

TEST(FixPrompt, ACorrectnessFixCarriesTheReportAndTheCorrectBestKernel) {
  const fix_request fix{"b2", fix_request::kind::correctness, "VARIANT_CODE();", "1024 of 33554432 differ; first at 4096", 1};
  const auto p = build_fix_prompt(transpose_inputs(), fix, skills());
  EXPECT_TRUE(has(p.changing, "## Variant to fix: b2 (wrong results)"));
  EXPECT_TRUE(has(p.changing, "outputs differ from the reference"));
  EXPECT_TRUE(has(p.changing, "### The comparison report\n```text\n1024 of 33554432 differ; first at 4096\n```"));
  EXPECT_TRUE(has(p.changing, "NAIVE_BODY"));
  EXPECT_TRUE(has(p.changing, "SECOND_ATTEMPT_WHY"));
}

TEST(FixPrompt, CodeContainingAFenceCannotCloseItsBlock) {
  const fix_request fix{"b1", fix_request::kind::compile, "// ``` inside\nx();", "log", 0};
  const auto p = build_fix_prompt(transpose_inputs(), fix, skills());
  EXPECT_TRUE(has(p.changing, "````cuda\n// ``` inside\nx();\n````\n"));
}

// Issue 26: without a GPU the GPU section was empty, yet the prompt said to reason from the GPU's
// peaks. Both ways: with figures the prompt points at them, without it says none are given.
TEST(ProposePrompt, WithoutGpuFiguresTheGpuSectionSaysSoAndNoPeaksAreInvoked) {
  auto in = transpose_inputs();
  in.diagnosis.reset();
  in.gpu = {"", "sm_90", {}};
  const auto p = build_propose_prompt(in, skills());
  const auto stable = all_stable(p);
  EXPECT_TRUE(has(stable, "## GPU\nTarget architecture: sm_90\nNo GPU figures are available")) << stable;
  EXPECT_FALSE(has(stable, "## GPU\n (sm_90)"));
  EXPECT_TRUE(has(p.changing, "Not profiled (no counters were read, and no GPU figures are available)"));
  EXPECT_FALSE(has(p.changing, "peaks")) << p.changing;
  EXPECT_FALSE(has(p.changing, "GPU's figures"));
}

TEST(ProposePrompt, WithGpuFiguresTheNotProfiledTextPointsAtThem) {
  auto in = transpose_inputs();
  in.diagnosis.reset();
  const auto p = build_propose_prompt(in, skills());
  EXPECT_TRUE(has(all_stable(p), "## GPU\nNVIDIA H100 SXM5 80GB (sm_90)\n- Peak DRAM bandwidth: 3350 GB/s\n"));
  EXPECT_FALSE(has(all_stable(p), "No GPU figures"));
  EXPECT_TRUE(has(p.changing, "Not profiled (no counters were read): reason from the code, the problem's sizes and "
                              "the GPU's figures above."));
}

// The memory_bound playbook is DRAM's ("tensor cores, FMA tricks and unrolling of arithmetic do
// nothing here"): an L1-bound GEMM must not read it, a DRAM-bound kernel still does.
TEST(ProposePrompt, TheMemoryBoundPlaybookFollowsTheBindingLevel) {
  auto in = transpose_inputs();
  in.diagnosis->binding = "l1_bound";
  in.diagnosis->off_level = {"memory_bound"};
  in.diagnosis->bottleneck = "L1-bound: L1/shared at 99.4% of its peak (DRAM 0.6%)";
  auto c = build_propose_prompt(in, skills()).changing;
  EXPECT_TRUE(has(c, "Bottleneck: L1-bound: L1/shared at 99.4% of its peak (DRAM 0.6%)\n"));
  EXPECT_FALSE(has(c, playbook("memory_bound")));
  EXPECT_FALSE(has(c, "FMA tricks"));
  EXPECT_TRUE(has(c, "### memory_bound: not for this kernel: its binding level is not DRAM"));
  EXPECT_TRUE(has(c, playbook("poor_coalescing"))); // the other playbooks stay
  in.diagnosis->binding = "dram_bound";
  in.diagnosis->off_level.clear();
  c = build_propose_prompt(in, skills()).changing;
  EXPECT_TRUE(has(c, playbook("memory_bound")));
}
