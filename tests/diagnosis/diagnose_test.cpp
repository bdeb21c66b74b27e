#include "diagnosis/diagnose.hpp"
#include "diagnosis/render.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace warpforge::diagnosis;
using namespace warpforge::diagnosis::testing;

namespace {

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(diagnose, a_copy_kernel_gets_gaps_budget_roofline_point_and_findings) {
  const gpu_profile gpu = describe_gpu(builtin_gpu_table(), h100_sxm_device());
  const diagnosis d = diagnose(copy_kernel(), gpu);
  // Gaps and budget as in roofline_test: {0.8279, 0.0896, 0.624} -> {2, 0, 1}.
  EXPECT_DOUBLE_EQ(d.gaps.memory, 1.0 - 0.9104);
  EXPECT_FALSE(d.near_peak);
  EXPECT_EQ(d.widest, widest_gap::compute);
  EXPECT_EQ(d.budget, (method_budget{2, 0, 1}));
  // Derived: dram_bytes = 2 · 268.44e6 = 536.88e6 B over 178.02 us = 3.0159e12 B/s,
  // 3.0159e12 / 3350e9 = 0.9003 of the H100 SXM's DRAM peak.
  EXPECT_DOUBLE_EQ(d.metrics.at("dram_bytes"), 536.88e6);
  ASSERT_TRUE(d.roofline.bandwidth_fraction);
  EXPECT_NEAR(*d.roofline.bandwidth_fraction, 536.88e6 / 178.02e-6 / 3350e9, 1e-12);
  EXPECT_NEAR(*d.roofline.bandwidth_fraction, 0.9003, 1e-4);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().rule_id, "memory_bound");
  // The copy has no FLOP counters: roofline FLOP fields are absent, and rules needing
  // unmeasured metrics (e.g. huge_dram_traffic is measurable, bank_conflicts too) are listed.
  EXPECT_FALSE(d.roofline.achieved_flops);
  EXPECT_TRUE(d.notes.empty()) << d.notes[0];
}

TEST(diagnose, near_peak_is_reported_when_every_gap_is_small) {
  // tensor 0.90 -> Δc 0.10; dram 0.88 -> Δm 0.12; largest stall 0.14 -> Δl 0.14: all < 0.15.
  const diagnosis d = diagnose({{"tensor_hmma_pipe", 0.90}, {"dram_throughput", 0.88},
                                {"stall_long_scoreboard", 0.14}},
                               describe_gpu(builtin_gpu_table(), h100_sxm_device()));
  EXPECT_TRUE(d.near_peak);
  EXPECT_EQ(d.widest, widest_gap::near_peak);
}

TEST(diagnose, without_profiler_data_everything_is_degraded_and_every_rule_unevaluated) {
  const diagnosis d =
      diagnose({}, describe_gpu(builtin_gpu_table(), {"NVIDIA Mystery", 0, 0, 0, 0, 0}));
  EXPECT_TRUE(d.gaps.degraded);
  EXPECT_EQ(d.budget, (method_budget{1, 1, 1}));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.not_evaluated.size(), builtin_rules().rules().size());
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_TRUE(contains(d.notes[0], "degraded"));
  EXPECT_TRUE(contains(d.notes[1], "not in the GPU table"));
}

TEST(diagnose, the_text_report_groups_metrics_by_section_and_lists_gaps_and_findings) {
  const diagnosis d =
      diagnose(naive_transpose(), describe_gpu(builtin_gpu_table(), h100_sxm_device()));
  const std::string text = render_text(d);
  EXPECT_TRUE(contains(text, "GPU: NVIDIA H100 80GB HBM3 (NVIDIA H100 SXM5 80GB, sm_90)")) << text;
  EXPECT_TRUE(contains(text, "  Speed of light\n")) << text;
  EXPECT_TRUE(contains(text, "  Memory\n")) << text;
  EXPECT_TRUE(contains(text, "  Warp stalls\n")) << text;
  EXPECT_LT(text.find("  Speed of light\n"), text.find("  Memory\n")); // the schema's order
  EXPECT_TRUE(contains(text, "Global store sectors per request")) << text;
  EXPECT_TRUE(contains(text, "32 sectors/request")) << text;
  EXPECT_TRUE(contains(text, "DRAM throughput")) << text;
  EXPECT_TRUE(contains(text, "55.1 %")) << text;
  EXPECT_TRUE(contains(text, "gaps: compute 0.88, memory 0.45, latency 0.45")) << text;
  EXPECT_TRUE(contains(text, "method budget: compute")) << text;
  EXPECT_TRUE(contains(text, "[warning] poor_coalescing: Uncoalesced global access")) << text;
  EXPECT_TRUE(contains(text, "action: Make consecutive threads")) << text;
  EXPECT_TRUE(contains(text, "Not evaluated")) << text;
  EXPECT_TRUE(contains(text, "missing")) << text;
}

TEST(diagnose, a_rule_missing_a_derived_metric_names_the_derived_metrics_own_missing_inputs) {
  const diagnosis d =
    diagnose(register_heavy_stencil(), describe_gpu(builtin_gpu_table(), h100_sxm_device()));
  const auto u =
      std::find_if(d.not_evaluated.begin(), d.not_evaluated.end(),
                   [](const unevaluated_rule& r) { return r.rule_id == "huge_dram_traffic"; });
  ASSERT_NE(u, d.not_evaluated.end());
  EXPECT_EQ(u->problem.message,
            "missing dram_bytes (dram_bytes: missing dram_bytes_read, dram_bytes_write)");
}

TEST(diagnose, metrics_outside_the_schema_are_shown_as_other_metrics) {
  metric_values measured = copy_kernel();
  measured.emplace("my_counter", 42.0);
  const diagnosis d = diagnose(measured, describe_gpu(builtin_gpu_table(), h100_sxm_device()));
  const std::string text = render_text(d);
  EXPECT_TRUE(contains(text, "Other metrics (not in the schema)")) << text;
  EXPECT_TRUE(contains(text, "my_counter")) << text;
}
