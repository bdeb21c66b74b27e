// The hierarchical roofline names the level that binds a kernel (issue 26: a naive SGEMM bound by
// L1 was told "Bottleneck: memory ... DRAM 0.6% of peak" and offered mixed precision), on the
// recorded metric sets of metric_sets.hpp: one per shape the examples cover.

#include "diagnosis/diagnose.hpp"
#include "diagnosis/hierarchical_roofline.hpp"
#include "diagnosis/render.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

using namespace warpforge::diagnosis;
using namespace warpforge::diagnosis::testing;

namespace {

diagnosis diagnosed(const metric_values& m) {
  return diagnose(m, describe_gpu(builtin_gpu_table(), h100_sxm_device()));
}

std::string first_method(const diagnosis& d) { return d.advice.first.empty() ? "" : d.advice.first.front().id; }

} // namespace

TEST(hierarchical_roofline, every_level_and_kind_round_trips_through_its_name) {
  for (auto level : all_roofline_levels)
    EXPECT_EQ(roofline_level_from_string(to_string(level)), level);
  for (auto kind : all_binding_kinds)
    EXPECT_EQ(binding_kind_from_string(to_string(kind)), kind);
  EXPECT_EQ(roofline_level_from_string("l3"), std::nullopt);
  EXPECT_EQ(binding_kind_from_string("bound"), std::nullopt);
}

TEST(hierarchical_roofline, the_naive_sgemm_is_l1_bound_and_register_tiling_comes_first) {
  const auto d = diagnosed(l1_bound_sgemm_2048());
  EXPECT_EQ(d.levels.kind, binding_kind::l1_bound);
  ASSERT_TRUE(d.levels.binding);
  EXPECT_EQ(*d.levels.binding, roofline_level::l1);
  EXPECT_EQ(d.levels.headline.rfind("L1-bound: L1/shared at 99.4% of its peak", 0), 0u) << d.levels.headline;
  EXPECT_NE(d.levels.headline.find("DRAM 0.6%"), std::string::npos) << d.levels.headline;
  // The memory gap is L1's, not DRAM's: the kernel is at a memory roof, not 0.99 from it.
  EXPECT_NEAR(d.gaps.memory, 1.0 - 0.994, 1e-12);
  EXPECT_EQ(d.gaps.memory_key, "l1_throughput");
  ASSERT_NE(d.levels.reading(roofline_level::dram), nullptr);
  EXPECT_NEAR(d.levels.reading(roofline_level::dram)->gap, 1.0 - 0.0062, 1e-12);
  EXPECT_EQ(first_method(d), "compute.ilp_unroll_register_tile");
  EXPECT_EQ(d.advice.playbook.find("do nothing"), std::string::npos) << d.advice.playbook;
  const auto text = render_text(d);
  EXPECT_NE(text.find("binding level: L1-bound"), std::string::npos) << text;
  EXPECT_NE(text.find("memory 0.01 (from L1/shared)"), std::string::npos) << text;
  EXPECT_NE(text.find("try first at this level: compute.ilp_unroll_register_tile"), std::string::npos) << text;
  EXPECT_EQ(text.find("use narrower types"), std::string::npos) << "memory_bound's DRAM action: " << text;
  EXPECT_NE(render_text(diagnosed(dram_bound_reduction())).find("use narrower types"), std::string::npos);
}

TEST(hierarchical_roofline, the_naive_transpose_is_dram_bound_with_uncoalesced_stores_and_coalescing_first) {
  const auto d = diagnosed(uncoalesced_transpose_8192());
  EXPECT_EQ(d.levels.kind, binding_kind::dram_bound);
  EXPECT_TRUE(d.levels.uncoalesced);
  EXPECT_EQ(first_method(d), "memory.coalesced_access");
  EXPECT_NE(d.advice.playbook.find("do nothing"), std::string::npos) << d.advice.playbook;
}

TEST(hierarchical_roofline, a_transpose_without_l1_and_l2_counters_is_memory_bound_at_an_unresolved_level) {
  // naive_transpose() has DRAM 55% and memory throughput 78%: some cache level is busier, but
  // which was not measured; the headline says so instead of guessing.
  const auto d = diagnosed(naive_transpose());
  EXPECT_EQ(d.levels.kind, binding_kind::memory_bound);
  EXPECT_NE(d.levels.headline.find("level not measured"), std::string::npos) << d.levels.headline;
  EXPECT_EQ(first_method(d), "memory.coalesced_access");
}

TEST(hierarchical_roofline, the_softmax_is_latency_bound_and_occupancy_comes_first) {
  const auto d = diagnosed(latency_bound_softmax());
  EXPECT_EQ(d.levels.kind, binding_kind::latency_bound);
  EXPECT_FALSE(d.levels.binding);
  ASSERT_TRUE(d.levels.busiest);
  EXPECT_EQ(*d.levels.busiest, roofline_level::l2); // 44%, DRAM's 41% the next
  EXPECT_NE(d.levels.headline.find("no level reaches 60.0% of its peak (busiest: L2 44.0%)"), std::string::npos)
      << d.levels.headline;
  EXPECT_EQ(first_method(d), "compute.launch_config");
}

TEST(hierarchical_roofline, the_reduction_is_dram_bound_and_holds_the_roof_with_fewer_bytes) {
  const auto d = diagnosed(dram_bound_reduction());
  EXPECT_EQ(d.levels.kind, binding_kind::dram_bound);
  EXPECT_FALSE(d.levels.uncoalesced);
  EXPECT_EQ(first_method(d), "memory.vectorized_access");
  EXPECT_NE(d.advice.playbook.find("Move fewer bytes"), std::string::npos) << d.advice.playbook;
}

TEST(hierarchical_roofline, a_pipe_above_the_memory_levels_is_compute_bound) {
  metric_values m{{"dram_throughput", 0.2}, {"l1_throughput", 0.5}, {"sm_throughput", 0.7}, {"fp32_pipe", 0.9}};
  const auto h = locate_in_hierarchy(m);
  EXPECT_EQ(h.kind, binding_kind::compute_bound);
  EXPECT_EQ(h.binding, roofline_level::fp32);
}

TEST(hierarchical_roofline, a_tie_between_dram_and_a_cache_names_dram) {
  const auto h = locate_in_hierarchy({{"dram_throughput", 0.8}, {"l1_throughput", 0.8}});
  EXPECT_EQ(h.binding, roofline_level::dram);
}

TEST(hierarchical_roofline, nothing_measured_is_unknown_and_says_so) {
  const auto h = locate_in_hierarchy({{"duration", 1e-3}});
  EXPECT_EQ(h.kind, binding_kind::unknown);
  EXPECT_TRUE(h.levels.empty());
  EXPECT_NE(h.headline.find("no throughput"), std::string::npos) << h.headline;
  EXPECT_TRUE(advise_for_level(h, {}, {}).first.empty());
}

TEST(method_advice, lower_precision_is_ruled_out_where_the_problem_forbids_it_or_its_tolerance_is_too_tight) {
  const auto d = diagnosed(l1_bound_sgemm_2048());
  problem_constraints unknown;
  EXPECT_EQ(ruled_out_by_problem("compute.mixed_precision", d.work, unknown), std::nullopt);
  problem_constraints forbids{true, false, 1e-2, 1.7e10};
  auto why = ruled_out_by_problem("compute.mixed_precision", d.work, forbids);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("forbids lower precision"), std::string::npos) << *why;
  EXPECT_TRUE(ruled_out_by_problem("compute.tensor_core", d.work, forbids));
  problem_constraints tight{true, true, 1e-4, 1.7e10};
  why = ruled_out_by_problem("compute.mixed_precision", d.work, tight);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("rtol 0.0001"), std::string::npos) << *why;
  problem_constraints loose{true, true, 1e-2, 1.7e10};
  EXPECT_EQ(ruled_out_by_problem("compute.mixed_precision", d.work, loose), std::nullopt);
  EXPECT_EQ(ruled_out_by_problem("compute.tensor_core", d.work, loose), std::nullopt);
  // A method that keeps f32 accuracy is never a lower-precision one.
  EXPECT_EQ(ruled_out_by_problem("compute.tf32_emulation_3xtf32_bf16x6", d.work, forbids), std::nullopt);
}

TEST(method_advice, tensor_cores_are_ruled_out_without_flop_measured_or_declared) {
  const auto transpose = diagnosed(naive_transpose()); // 0 FLOP counted
  auto why = ruled_out_by_problem("compute.tensor_core", transpose.work, {});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("no FLOP"), std::string::npos) << *why;
  const auto sgemm = diagnosed(l1_bound_sgemm_2048());
  problem_constraints undeclared{true, true, 1e-2, std::nullopt};
  why = ruled_out_by_problem("compute.tensor_core", sgemm.work, undeclared);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("[work] flop"), std::string::npos) << *why;
  problem_constraints zero{true, true, 1e-2, 0.0};
  EXPECT_TRUE(ruled_out_by_problem("memory.ldmatrix_stmatrix", sgemm.work, zero));
  EXPECT_EQ(ruled_out_by_problem("memory.tiling_smem", sgemm.work, zero), std::nullopt);
}

TEST(method_advice, only_a_dram_or_unresolved_binding_lets_memory_bound_call_for_methods) {
  for (auto kind : all_binding_kinds) {
    const bool dram = kind == binding_kind::dram_bound || kind == binding_kind::memory_bound ||
                      kind == binding_kind::unknown;
    EXPECT_EQ(finding_fits_binding("memory_bound", kind), dram) << to_string(kind);
    EXPECT_TRUE(finding_fits_binding("poor_coalescing", kind)) << to_string(kind);
  }
}
