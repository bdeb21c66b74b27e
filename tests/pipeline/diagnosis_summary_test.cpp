// The candidate methods fit the kernel's measured work (issue 11: `diagnose` of a naive transpose
// listed tensor cores and kernel fusion for a kernel with zero FLOPs and a single launch), from
// the recorded metric sets of tests/diagnosis/metric_sets.hpp.

#include "pipeline/diagnosis_summary.hpp"

#include "tests/diagnosis/metric_sets.hpp"

#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>

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

} // namespace
} // namespace warpforge::pipeline
