#include "diagnosis/roofline.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

using namespace warpforge::diagnosis;
using namespace warpforge::diagnosis::testing;

namespace {

roofline_gaps gaps_of(double compute, double memory, double latency) {
  roofline_gaps g;
  g.compute = compute;
  g.memory = memory;
  g.latency = latency;
  return g;
}

} // namespace

TEST(roofline, every_axis_and_widest_gap_round_trips_through_its_name) {
  for (auto axis : all_roofline_axes)
    EXPECT_EQ(roofline_axis_from_string(to_string(axis)), axis);
  for (auto gap : all_widest_gaps)
    EXPECT_EQ(widest_gap_from_string(to_string(gap)), gap);
  EXPECT_FALSE(roofline_axis_from_string("bandwidth"));
  EXPECT_FALSE(widest_gap_from_string("bound"));
}

TEST(roofline, the_policy_defaults_are_the_seeds) {
  const roofline_policy policy;
  EXPECT_EQ(policy.near_peak_gap, 0.15);
  EXPECT_EQ(policy.latency_default_gap, 0.5);
  EXPECT_EQ(policy.degraded_gap, 0.5);
  EXPECT_EQ(policy.budget_total, 3u);
  EXPECT_EQ(policy.budget_axis_cap, 2u);
  EXPECT_EQ(policy.budget_zero_below, 0.10);
  EXPECT_EQ(policy.budget_uniform_below, 0.01);
}

TEST(roofline, gaps_of_a_copy_kernel_follow_the_seed_formulas) {
  // Δc = max(0, 1 − max(tensor 0 (absent), fp32 0.0, sm 0.1721)) = 1 − 0.1721 = 0.8279
  // Δm = max(0, 1 − dram 0.9104) = 0.0896
  // Δl = max(long_sb 0.624, short_sb 0.0012, barrier 0, mio 0.0041, lg 0.121, wait 0.0302) = 0.624
  const roofline_gaps g = compute_gaps(copy_kernel());
  EXPECT_DOUBLE_EQ(g.compute, 1.0 - 0.1721);
  EXPECT_DOUBLE_EQ(g.memory, 1.0 - 0.9104);
  EXPECT_DOUBLE_EQ(g.latency, 0.624);
  EXPECT_FALSE(g.degraded);
  EXPECT_DOUBLE_EQ(g.compute_utilisation, 0.1721);
  EXPECT_EQ(g.memory_key, "dram_throughput");
  EXPECT_EQ(g.max_stall_key, "stall_long_scoreboard");
  EXPECT_FALSE(is_near_peak(g));
  EXPECT_EQ(widest_gap_of(g), widest_gap::compute); // the seed's "bound": the most headroom
}

TEST(roofline, tensor_hmma_comes_before_imma_and_the_largest_utilisation_wins) {
  // tensor = hmma 0.70 (imma 0.95 is ignored: the seed takes the first match);
  // Δc = 1 − max(0.70, fp32 0.20, sm 0.65) = 0.30.
  const roofline_gaps g = compute_gaps({{"tensor_hmma_pipe", 0.70}, {"tensor_imma_pipe", 0.95},
                                        {"fp32_pipe", 0.20}, {"sm_throughput", 0.65}});
  EXPECT_DOUBLE_EQ(g.compute, 0.30);
  // Without hmma, imma is used: Δc = 1 − 0.95 = 0.05.
  EXPECT_NEAR(compute_gaps({{"tensor_imma_pipe", 0.95}}).compute, 0.05, 1e-12);
}

TEST(roofline, memory_falls_back_to_memory_throughput_and_missing_counts_as_zero) {
  // No dram_throughput: X = memory_throughput 0.78, Δm = 0.22.
  EXPECT_NEAR(compute_gaps({{"memory_throughput", 0.78}}).memory, 0.22, 1e-12);
  // Neither: X = 0, Δm = 1; no compute input either: Δc = 1 (one stall keeps it non-degraded).
  const roofline_gaps g = compute_gaps({{"stall_wait", 0.4}});
  EXPECT_EQ(g.memory, 1.0);
  EXPECT_EQ(g.compute, 1.0);
  EXPECT_EQ(g.memory_key, "");
  // Utilisation above 100% (rounding in the profiler) clamps the gap at 0.
  EXPECT_EQ(compute_gaps({{"dram_throughput", 1.02}}).memory, 0.0);
}

TEST(roofline, latency_defaults_to_one_half_and_stalls_are_clamped) {
  const roofline_gaps none = compute_gaps({{"sm_throughput", 0.5}});
  EXPECT_EQ(none.latency, 0.5);
  EXPECT_FALSE(none.max_stall);
  EXPECT_EQ(compute_gaps({{"stall_barrier", 1.7}}).latency, 1.0);
  // Stalls outside the seed's latency axis (membar, not_selected) do not count.
  EXPECT_EQ(
      compute_gaps({{"stall_membar", 0.9}, {"stall_not_selected", 0.8}, {"sm_throughput", 0.5}})
          .latency,
      0.5);
}

TEST(roofline, no_profiler_data_degrades_every_gap_to_one_half) {
  const roofline_gaps g = compute_gaps({{"duration", 1e-3}});
  EXPECT_TRUE(g.degraded);
  EXPECT_EQ(g.compute, 0.5);
  EXPECT_EQ(g.memory, 0.5);
  EXPECT_EQ(g.latency, 0.5);
  // 3 gaps of 0.5: raw = 3 · 0.5 / 1.5 = 1 each.
  EXPECT_EQ(allocate_budget(g), (method_budget{1, 1, 1}));
}

TEST(roofline, near_peak_needs_every_gap_below_the_threshold) {
  EXPECT_TRUE(is_near_peak(gaps_of(0.14, 0.05, 0.149)));
  EXPECT_FALSE(is_near_peak(gaps_of(0.14, 0.05, 0.15)));
  EXPECT_EQ(widest_gap_of(gaps_of(0.14, 0.05, 0.149)), widest_gap::near_peak);
  // Ties: compute, then memory.
  EXPECT_EQ(widest_gap_of(gaps_of(0.4, 0.4, 0.4)), widest_gap::compute);
  EXPECT_EQ(widest_gap_of(gaps_of(0.3, 0.4, 0.4)), widest_gap::memory);
  EXPECT_EQ(widest_gap_of(gaps_of(0.3, 0.2, 0.4)), widest_gap::latency);
}

TEST(roofline, budget_of_the_copy_kernel_splits_by_gap_size) {
  // gaps {0.8279, 0.0896, 0.624}: memory < 0.10 counts 0; Σ = 1.4519;
  // raw = {3·0.8279/1.4519 = 1.7107, 0, 3·0.624/1.4519 = 1.2893} -> rounded {2, 0, 1}, sum 3.
  EXPECT_EQ(allocate_budget(compute_gaps(copy_kernel())), (method_budget{2, 0, 1}));
}

TEST(roofline, budget_caps_an_axis_at_two_and_moves_the_overflow_by_descending_gap) {
  // gaps {0.9, 0.05, 0.12}: eff {0.9, 0, 0.12}, Σ = 1.02;
  // raw = {2.647, 0, 0.353} -> {3, 0, 0}; cap -> {2, 0, 0}, overflow 1 -> next-widest below the
  // cap is latency (0.12 > memory 0.05) -> {2, 0, 1}.
  EXPECT_EQ(allocate_budget(gaps_of(0.9, 0.05, 0.12)), (method_budget{2, 0, 1}));
  // Only memory open: raw {0, 3, 0} -> cap {0, 2, 0}, overflow to the wider of compute 0.02 and
  // latency 0.08 -> latency: {0, 2, 1}.
  EXPECT_EQ(allocate_budget(gaps_of(0.02, 0.6, 0.08)), (method_budget{0, 2, 1}));
}

TEST(roofline, budget_rounds_half_to_even_then_removes_by_smallest_remainder) {
  // gaps {0.5, 0.5, 0.05}: eff {0.5, 0.5, 0}, raw {1.5, 1.5, 0} -> half-to-even {2, 2, 0} = 4;
  // remove one: remainders 0.5 and 0.5 tie -> compute loses first -> {1, 2, 0}.
  EXPECT_EQ(allocate_budget(gaps_of(0.5, 0.5, 0.05)), (method_budget{1, 2, 0}));
  // raw 2.5 rounds to 2 (even) and 0.5 to 0 (even): gaps {0.625, 0.125, 0.0} (exact in binary):
  // eff {0.625, 0.125, 0}, Σ = 0.75, raw {1.875 / 0.75 = 2.5, 0.375 / 0.75 = 0.5, 0} -> {2, 0, 0};
  // add one by largest remainder among axes below the cap: memory 0.5 > latency 0 -> {2, 1, 0}.
  EXPECT_EQ(allocate_budget(gaps_of(0.625, 0.125, 0.0)), (method_budget{2, 1, 0}));
}

TEST(roofline, budget_adds_by_largest_remainder_with_memory_first_on_ties) {
  // gaps {0.45, 0.45, 0.10}: Σ = 1.0, raw {1.35, 1.35, 0.30} -> {1, 1, 0} = 2;
  // remainders {0.35, 0.35, 0.30}: compute and memory tie -> memory -> {1, 2, 0}.
  EXPECT_EQ(allocate_budget(gaps_of(0.45, 0.45, 0.10)), (method_budget{1, 2, 0}));
  // gaps {0.2, 0.3, 0.5}: Σ = 1.0, raw {0.6, 0.9, 1.5} -> {1, 1, 2} = 4; remove by smallest
  // remainder: {0.6, 0.9, 0.5} -> latency -> {1, 1, 1}.
  EXPECT_EQ(allocate_budget(gaps_of(0.2, 0.3, 0.5)), (method_budget{1, 1, 1}));
}

TEST(roofline, budget_is_one_per_axis_when_no_gap_is_worth_a_method) {
  // Every gap < 0.10 -> effective Σ = 0 < 0.01 -> {1, 1, 1}.
  EXPECT_EQ(allocate_budget(gaps_of(0.09, 0.02, 0.0)), (method_budget{1, 1, 1}));
  roofline_policy five;
  five.budget_total = 5;
  // total 5: 5 / 3 = 1 each, the remaining 2 to memory then latency -> {1, 2, 2}.
  EXPECT_EQ(allocate_budget(gaps_of(0.0, 0.0, 0.0), five), (method_budget{1, 2, 2}));
}

TEST(roofline, budget_always_sums_to_the_total_over_a_grid_of_gaps) {
  for (int c = 0; c <= 10; ++c)
    for (int m = 0; m <= 10; ++m)
      for (int l = 0; l <= 10; ++l) {
        const method_budget b = allocate_budget(gaps_of(c / 10.0, m / 10.0, l / 10.0));
        EXPECT_EQ(b.total(), 3u) << c << " " << m << " " << l;
        EXPECT_LE(b.compute, 2u);
        EXPECT_LE(b.memory, 2u);
        EXPECT_LE(b.latency, 2u);
      }
}

TEST(roofline, the_roofline_point_of_an_fp32_kernel_on_an_h100) {
  // 1e9 FFMA = 2e9 FLOP in 1 ms -> 2e12 FLOP/s; 1e8 DRAM bytes -> intensity 20 FLOP/B,
  // 1e11 B/s. H100 SXM: FP32 67e12 FLOP/s, 3350e9 B/s -> ridge 67e12 / 3.35e12 = 20 FLOP/B;
  // attainable = min(67e12, 20 · 3.35e12) = 67e12; compute fraction 2/67 = 0.029851;
  // bandwidth fraction 1e11 / 3.35e12 = 0.029851; attainable fraction 2/67.
  const metric_values completed{{"flop_fp32", 2e9},       {"flop_fp16", 0.0},
                                {"flop_fp64", 0.0},       {"achieved_flops", 2e12},
                                {"arithmetic_intensity", 20.0}, {"achieved_dram_bandwidth", 1e11}};
  const gpu_profile gpu = describe_gpu(builtin_gpu_table(), h100_sxm_device());
  const roofline_point p = locate_on_roofline(completed, gpu);
  EXPECT_EQ(p.dominant_precision, precision::fp32);
  EXPECT_DOUBLE_EQ(*p.peak_flops, 67e12);
  EXPECT_DOUBLE_EQ(*p.peak_bandwidth, 3350e9);
  EXPECT_DOUBLE_EQ(*p.ridge_point, 20.0);
  EXPECT_DOUBLE_EQ(*p.attainable_flops, 67e12);
  EXPECT_DOUBLE_EQ(*p.compute_fraction, 2.0 / 67.0);
  EXPECT_DOUBLE_EQ(*p.bandwidth_fraction, 1e11 / 3350e9);
  EXPECT_DOUBLE_EQ(*p.attainable_fraction, 2.0 / 67.0);
}

TEST(roofline, an_unknown_gpu_leaves_the_peak_fractions_absent) {
  const gpu_profile gpu = describe_gpu(builtin_gpu_table(), {"NVIDIA Mystery", 10, 0, 0, 0, 0});
  const roofline_point p = locate_on_roofline({{"flop_fp32", 2e9}, {"achieved_flops", 2e12},
                                               {"achieved_dram_bandwidth", 1e11}}, gpu);
  EXPECT_EQ(p.dominant_precision, precision::fp32);
  EXPECT_FALSE(p.peak_flops);
  EXPECT_FALSE(p.compute_fraction);
  EXPECT_FALSE(p.bandwidth_fraction);
  EXPECT_FALSE(p.ridge_point);
  EXPECT_DOUBLE_EQ(*p.achieved_flops, 2e12);
}
