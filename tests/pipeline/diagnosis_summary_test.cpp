// The candidate methods fit the kernel's measured work (issue 11: `diagnose` of a naive transpose
// listed tensor cores and kernel fusion for a kernel with zero FLOPs and a single launch), from
// the recorded metric sets of tests/diagnosis/metric_sets.hpp.

#include "pipeline/diagnosis_summary.hpp"

#include "llm/prompt/prompt.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/llm/facts.hpp"
#include "pipeline/records.hpp"

#include "tests/diagnosis/metric_sets.hpp"

#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace warpforge::pipeline {
namespace {

using diagnosis::testing::h100_sxm_device;

diagnosis::diagnosis diagnosed(const diagnosis::metric_values& m) {
  return diagnosis::diagnose(m, diagnosis::describe_gpu(diagnosis::builtin_gpu_table(),
                                                        h100_sxm_device()));
}

const method_exclusion* excluded(const method_choice& choice, std::string_view id) {
  for (const auto& e : choice.excluded)
    if (e.id == id)
      return &e;
  return nullptr;
}

bool chosen(const method_choice& choice, std::string_view id) {
  return std::any_of(choice.chosen.begin(), choice.chosen.end(),
                     [&](const sass::method_entry* m) { return m->id == id; });
}

TEST(DiagnosisSummary, TheNaiveTransposeGetsNoTensorCoresAndNoFusionAndSaysWhy) {
  const auto d = diagnosed(diagnosis::testing::naive_transpose());
  const auto choice = choose_methods(d, 90);
  for (const auto* m : choice.chosen) {
    EXPECT_TRUE(m->needs.empty()) << m->id << " needs work the transpose does not do";
    EXPECT_NE(m->id, "compute.tensor_core");
    EXPECT_NE(m->id, "memory.kernel_fusion");
  }
  const auto* tensor = excluded(choice, "compute.tensor_core");
  ASSERT_NE(tensor, nullptr);
  EXPECT_NE(tensor->reason.find("needs matrix_multiply: no arithmetic"), std::string::npos)
      << tensor->reason;
  const auto* fusion = excluded(choice, "memory.kernel_fusion");
  ASSERT_NE(fusion, nullptr);
  EXPECT_NE(fusion->reason.find("one kernel in one launch"), std::string::npos) << fusion->reason;
  // Its compute gap is no headroom: the methods go to memory, where the transpose is slow.
  EXPECT_FALSE(choice.budget_note.empty());
  EXPECT_TRUE(chosen(choice, "memory.coalesced_access") || chosen(choice, "memory.tiling_smem"));
  EXPECT_EQ(candidate_methods(d, 90), choice.chosen);
}

TEST(DiagnosisSummary, TheNaiveSgemmKeepsTensorCoresAndRegisterTiling) {
  const auto d = diagnosed(diagnosis::testing::naive_sgemm_2048());
  const auto choice = choose_methods(d, 90);
  EXPECT_EQ(excluded(choice, "compute.tensor_core"), nullptr);
  EXPECT_EQ(excluded(choice, "compute.ilp_unroll_register_tile"), nullptr);
  EXPECT_TRUE(choice.budget_note.empty());
  EXPECT_NE(excluded(choice, "memory.kernel_fusion"), nullptr); // still one kernel
  for (const auto* m : choice.chosen)
    EXPECT_TRUE(std::find(m->needs.begin(), m->needs.end(), sass::method_need::several_kernels) ==
                m->needs.end())
        << m->id;
}

TEST(DiagnosisSummary, SeveralKernelsLetFusionBack) {
  const auto d = diagnosed(diagnosis::testing::naive_transpose());
  EXPECT_EQ(excluded(choose_methods(d, 90, work_context{2}), "memory.kernel_fusion"), nullptr);
}

TEST(DiagnosisSummary, TheSummaryCarriesTheExclusionsAndTheGapsRowTheWorkAndPeak) {
  const auto d = diagnosed(diagnosis::testing::naive_sgemm_2048());
  const auto s = summarize(d, {}, 0, 90);
  EXPECT_FALSE(s.excluded.empty());
  simdjson::dom::parser parser;
  simdjson::dom::object gaps;
  ASSERT_EQ(parser.parse(s.gaps_json).get(gaps), simdjson::SUCCESS) << s.gaps_json;
  double flop = 0, fraction = 0, duration = 0;
  std::string_view axis, precision;
  ASSERT_EQ(gaps["flop"].get(flop), simdjson::SUCCESS);
  ASSERT_EQ(gaps["peak_fraction"].get(fraction), simdjson::SUCCESS);
  ASSERT_EQ(gaps["duration"].get(duration), simdjson::SUCCESS);
  ASSERT_EQ(gaps["binding_axis"].get(axis), simdjson::SUCCESS);
  ASSERT_EQ(gaps["precision"].get(precision), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(flop, 2.0 * 8589934592.0);
  EXPECT_NEAR(fraction, 0.103, 0.001);
  EXPECT_DOUBLE_EQ(duration, 2.49e-3);
  EXPECT_EQ(axis, "compute");
  EXPECT_EQ(precision, "fp32");
}

// Issue 26: the naive SGEMM bound by L1 was offered mixed precision, coalescing and async
// pipelines for an f32 problem with rtol 1e-4; register tiling, which gave 5.6x, never qualified.
TEST(DiagnosisSummary, AnL1BoundSgemmGetsRegisterTilingFirstAndNoLowerPrecisionItsProblemForbids) {
  const auto d = diagnosed(diagnosis::testing::l1_bound_sgemm_2048());
  work_context f32_problem;
  f32_problem.problem = {true, false, 1e-4, 2.0 * 8589934592.0};
  const auto choice = choose_methods(d, 90, f32_problem);
  ASSERT_FALSE(choice.chosen.empty());
  EXPECT_EQ(choice.chosen.front()->id, "compute.ilp_unroll_register_tile");
  for (const auto* m : choice.chosen) {
    EXPECT_NE(m->id, "compute.mixed_precision");
    EXPECT_NE(m->id, "compute.tensor_core");
  }
  // memory_bound fires on L1's 99.4%, but its DRAM methods (narrower types, bit tricks,
  // recomputation) do not speak to an L1-bound kernel; the level's second step does.
  EXPECT_FALSE(chosen(choice, "compute.lop3_bit_manipulation"));
  EXPECT_FALSE(chosen(choice, "latency.online_recomputation"));
  EXPECT_TRUE(chosen(choice, "memory.tiling_smem"));
  // At DRAM narrower data is advice, and a problem that forbids it has it left out with the reason.
  const auto reduction = choose_methods(diagnosed(diagnosis::testing::dram_bound_reduction()), 90, f32_problem);
  const auto* mixed = excluded(reduction, "compute.mixed_precision");
  ASSERT_NE(mixed, nullptr);
  EXPECT_NE(mixed->reason.find("forbids lower precision"), std::string::npos) << mixed->reason;
  EXPECT_FALSE(chosen(reduction, "compute.mixed_precision"));
  EXPECT_TRUE(chosen(choose_methods(diagnosed(diagnosis::testing::dram_bound_reduction()), 90),
                     "compute.mixed_precision"));
  // Without a problem at hand nothing is ruled out on its account, but the level's advice leads.
  const auto unconstrained = choose_methods(d, 90);
  ASSERT_FALSE(unconstrained.chosen.empty());
  EXPECT_EQ(unconstrained.chosen.front()->id, "compute.ilp_unroll_register_tile");
  EXPECT_EQ(excluded(unconstrained, "compute.mixed_precision"), nullptr);
}

TEST(DiagnosisSummary, AProblemThatDeclaresNoFlopGetsNoTensorCores) {
  // A GEMM whose FP32 pipe binds: the level's advice is tensor cores, unless there is no FLOP.
  auto m = diagnosis::testing::naive_sgemm_2048();
  m["sm_throughput"] = 0.92;
  m["fp32_pipe"] = 0.95;
  m["memory_throughput"] = 0.5;
  const auto d = diagnosed(m);
  ASSERT_EQ(d.levels.kind, diagnosis::binding_kind::compute_bound);
  ASSERT_FALSE(d.advice.first.empty());
  ASSERT_EQ(d.advice.first.front().id, "compute.tensor_core");
  EXPECT_EQ(excluded(choose_methods(d, 90), "compute.tensor_core"), nullptr);
  work_context undeclared;
  undeclared.problem = {true, true, 1e-2, std::nullopt};
  const auto choice = choose_methods(d, 90, undeclared);
  for (const auto* m : choice.chosen)
    EXPECT_FALSE(diagnosis::is_tensor_core_method(m->id)) << m->id;
  ASSERT_NE(excluded(choice, "compute.tensor_core"), nullptr);
}

TEST(DiagnosisSummary, EveryAdvisedMethodIsACatalogMethod) {
  const auto& catalog = sass::method_catalog::builtin();
  for (const auto& m : {diagnosis::testing::l1_bound_sgemm_2048(), diagnosis::testing::uncoalesced_transpose_8192(),
                        diagnosis::testing::latency_bound_softmax(), diagnosis::testing::dram_bound_reduction(),
                        diagnosis::testing::naive_transpose(), diagnosis::testing::register_heavy_stencil()})
    for (const auto& advised : diagnosed(m).advice.first)
      EXPECT_NE(catalog.find(advised.id), nullptr) << advised.id;
}

TEST(DiagnosisSummary, TheGapsRowNamesTheBindingLevel) {
  const auto s = summarize(diagnosed(diagnosis::testing::l1_bound_sgemm_2048()), {}, 0, 90);
  simdjson::dom::parser parser;
  simdjson::dom::object gaps;
  ASSERT_EQ(parser.parse(s.gaps_json).get(gaps), simdjson::SUCCESS) << s.gaps_json;
  std::string_view kind, level, headline;
  ASSERT_EQ(gaps["binding_kind"].get(kind), simdjson::SUCCESS);
  ASSERT_EQ(gaps["binding_level"].get(level), simdjson::SUCCESS);
  ASSERT_EQ(gaps["binding_headline"].get(headline), simdjson::SUCCESS);
  EXPECT_EQ(kind, "l1_bound");
  EXPECT_EQ(level, "l1");
  EXPECT_EQ(headline.substr(0, 9), "L1-bound:");
}

// The discovery leaves counter access unknown (it opens no context); a metric file says what its
// profile showed instead: readable when it read a counter, still unknown with only the CUBIN's
// launch attributes.
TEST(DiagnosisSummary, AMetricFileSaysCountersAreReadableOnlyWhenItsProfileReadOne) {
  const auto dir = std::filesystem::temp_directory_path() / ("wf-metric-file-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  gpu::device_info device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.counters = gpu::counter_access::unknown;
  device.counter_reason = "not probed";
  gpu::metric_set launch_only;
  launch_only.source = gpu::metric_source::cupti;
  launch_only.values = {{"launch__registers_per_thread", 32.0}};
  gpu::metric_set counted = launch_only;
  counted.values.push_back({"dram__bytes_read.sum", 1024.0});
  const auto text_of = [](const std::filesystem::path& path) {
    std::ifstream in{path};
    return std::string{std::istreambuf_iterator<char>{in}, {}};
  };
  ASSERT_TRUE(write_metric_file(dir / "launch.json", {launch_only, device}));
  ASSERT_TRUE(write_metric_file(dir / "counted.json", {counted, device}));
  EXPECT_NE(text_of(dir / "launch.json").find(R"("counter_access":"unknown")"), std::string::npos)
    << text_of(dir / "launch.json");
  EXPECT_NE(text_of(dir / "counted.json").find(R"("counter_access":"readable")"), std::string::npos)
    << text_of(dir / "counted.json");
  EXPECT_NE(text_of(dir / "counted.json").find("read by this profile"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// What the model reads of the issue-26 SGEMM, from its recorded metrics kept where the engine
// keeps them, through the prompt's facts (pipeline/llm/facts) and the propose prompt.
TEST(DiagnosisSummary, ThePromptOfAnL1BoundSgemmNamesL1AndOffersNoLowerPrecisionForItsF32Problem) {
  const auto run_dir = std::filesystem::temp_directory_path() / ("wf-l1-prompt-" + std::to_string(::getpid()));
  std::filesystem::remove_all(run_dir);
  const branch_ref of{"c", "sgemm", 1, 0};
  gpu::metric_set metrics;
  metrics.source = gpu::metric_source::ncu;
  for (const auto& [key, value] : diagnosis::testing::l1_bound_sgemm_2048())
    metrics.values.push_back({key, value});
  gpu::device_info device;
  device.ordinal = 0;
  device.name = "NVIDIA H100 80GB HBM3";
  device.sm_major = 9;
  device.sm_count = 132;
  ASSERT_TRUE(write_metric_file(branch_folder(run_dir, "sgemm", 1, 0) / "metrics-gpu0.json", {metrics, device}));
  work_context f32_problem;
  f32_problem.problem = {true, false, 1e-4, 2.0 * 8589934592.0};
  const auto facts = diagnosis_facts_of(run_dir, "sgemm", summarize_metrics(metrics, device, of), f32_problem);
  ASSERT_TRUE(facts.diagnosis);
  llm::prompt_inputs in;
  in.gpu = facts.gpu;
  in.diagnosis = facts.diagnosis;
  const auto skills = *llm::skill_library::built_in();
  const auto c = llm::build_propose_prompt(in, skills).changing;
  const auto has = [&](std::string_view part) { return c.find(part) != std::string::npos; };
  EXPECT_TRUE(has("Bottleneck: L1-bound: L1/shared at 99.4% of its peak")) << c;
  EXPECT_TRUE(has("DRAM 0.6%"));
  EXPECT_TRUE(has("Candidate methods (fit the findings, the budget and this GPU), best first: "
                  "compute.ilp_unroll_register_tile"))
      << c;
  EXPECT_FALSE(has("compute.mixed_precision,"));
  EXPECT_TRUE(has("memory.tiling_smem"));
  EXPECT_FALSE(has("FMA tricks"));
  EXPECT_FALSE(has("Bottleneck: memory\n"));
  // The memory_bound finding is still reported, but its DRAM action ("use narrower types") is not.
  EXPECT_TRUE(has("memory_bound: Memory-bound"));
  EXPECT_FALSE(has("use narrower types")) << c;
  EXPECT_TRUE(has("none at this level: this finding's action is for a kernel bound at DRAM, and this one is l1_bound"));
  // Without the metric file the summary's gaps row still names the binding level.
  std::filesystem::remove_all(run_dir);
  const auto from_summary = diagnosis_facts_of(run_dir, "sgemm", summarize_metrics(metrics, device, of), f32_problem);
  ASSERT_TRUE(from_summary.diagnosis);
  EXPECT_EQ(from_summary.diagnosis->bottleneck.rfind("L1-bound: L1/shared at 99.4% of its peak", 0), 0u)
      << from_summary.diagnosis->bottleneck;
  EXPECT_EQ(from_summary.diagnosis->binding, "l1_bound");
}

TEST(DiagnosisSummary, AProfileNobodyTookSaysOutOfServiceWithItsReasonNotADiagnosis) {
  gpu::metric_set none;
  none.note = "gpu.1 is out of service: its runner gave up";
  none.service = gpu::worker_service::out_of_service;
  none.why_out_of_service = none.note;
  gpu::device_info device;
  device.ordinal = 1;
  const auto summary = summarize_metrics(none, device, branch_ref{});
  EXPECT_FALSE(summary.diagnosed);
  EXPECT_EQ(summary.service, gpu::worker_service::out_of_service) << "the engine gives it to another GPU";
  EXPECT_EQ(summary.why_out_of_service, none.why_out_of_service);
  gpu::metric_set empty; // read, but nothing came back: undiagnosed, still in service
  EXPECT_EQ(summarize_metrics(empty, device, branch_ref{}).service, gpu::worker_service::in_service);
}

} // namespace
} // namespace warpforge::pipeline
