// kernel_times: launches summed per kernel and per run, each kernel's verdict against its own
// noise, the total, and the comparison's JSON read back as written.

#include "deploy/kernel_times.hpp"

#include <gtest/gtest.h>

namespace warpforge::deploy {
namespace {

// Three runs; `named_s` and `other_s` per launch, the named kernel launched twice a run.
std::vector<std::vector<launch_time>> runs_of(std::vector<double> named_s, std::vector<double> other_s) {
  std::vector<std::vector<launch_time>> runs;
  for (std::size_t r = 0; r < named_s.size(); ++r)
    runs.push_back({{"k", true, named_s[r]}, {"other", false, other_s[r]}, {"k", true, named_s[r]}});
  return runs;
}

TEST(kernel_times, launches_are_summed_per_kernel_and_run_and_a_missing_kernel_counts_zero_in_its_run) {
  auto runs = runs_of({1e-3, 2e-3, 3e-3}, {5e-4, 5e-4, 6e-4});
  runs[1].push_back({"late", false, 7e-3}); // launched in run 2 only
  auto p = tally_kernels(runs);
  ASSERT_EQ(p.by_kernel.size(), 3u);
  EXPECT_EQ(p.by_kernel["k"].samples, (std::vector<double>{2e-3, 4e-3, 6e-3}));
  EXPECT_DOUBLE_EQ(p.by_kernel["k"].median, 4e-3);
  EXPECT_DOUBLE_EQ(p.by_kernel["k"].spread, 4e-3);
  EXPECT_EQ(p.by_kernel["k"].launches, 6);
  EXPECT_EQ(p.by_kernel["late"].samples, (std::vector<double>{0, 7e-3, 0}));
  EXPECT_TRUE(p.named["k"]);
  EXPECT_FALSE(p.named["other"]);
  EXPECT_DOUBLE_EQ(p.total.samples[1], 4e-3 + 5e-4 + 7e-3);
  EXPECT_EQ(p.total.launches, 10);
}

TEST(kernel_times, each_verdict_is_against_the_larger_spread_of_that_kernel) {
  auto before = tally_kernels(runs_of({1e-3, 1e-3, 1e-3}, {1.0e-4, 1.1e-4, 1.2e-4})); // other: spread 2e-5
  auto slower = compare_kernels(before, tally_kernels(runs_of({5e-4, 5e-4, 5e-4}, {1.4e-4, 1.4e-4, 1.4e-4})));
  ASSERT_EQ(slower.rows.size(), 2u);
  EXPECT_EQ(slower.rows[0].kernel, "k") << "the named kernel first";
  EXPECT_EQ(slower.rows[0].verdict, kernel_verdict::faster);
  EXPECT_EQ(slower.rows[1].verdict, kernel_verdict::slower); // +3e-5 > 2e-5
  ASSERT_EQ(slower_others(slower).size(), 1u);
  EXPECT_EQ(slower_others(slower)[0]->kernel, "other");
  EXPECT_FALSE(total_grew(slower)); // -1e-3 + 3e-5

  auto within = compare_kernels(before, tally_kernels(runs_of({5e-4, 5e-4, 5e-4}, {1.25e-4, 1.25e-4, 1.25e-4})));
  EXPECT_EQ(within.rows[1].verdict, kernel_verdict::within_noise); // +1.5e-5 <= 2e-5
  EXPECT_TRUE(slower_others(within).empty());
}

TEST(kernel_times, a_total_that_grows_while_each_kernel_stays_within_its_noise_is_seen) {
  // The named kernel a hair faster, within noise too; the other +1.5e-5 within its noise: total up.
  auto before = tally_kernels(runs_of({1e-3, 1.001e-3, 1.002e-3}, {1.0e-4, 1.1e-4, 1.2e-4}));
  auto after = tally_kernels(runs_of({1e-3, 1.001e-3, 1.0015e-3}, {1.25e-4, 1.25e-4, 1.25e-4}));
  auto c = compare_kernels(before, after);
  EXPECT_TRUE(slower_others(c).empty());
  EXPECT_TRUE(total_grew(c));
}

TEST(kernel_times, a_kernel_the_program_stopped_launching_or_launches_less_is_a_changed_workload) {
  // A shared #define makes the host skip "other" (its time would read as a gain), and launch the
  // named kernel once a run instead of twice (fewer solver iterations would read as a speed-up).
  const auto before = tally_kernels(runs_of({1e-3, 1e-3, 1e-3}, {1e-4, 1e-4, 1e-4}));
  std::vector<std::vector<launch_time>> fewer(3, std::vector<launch_time>{{"k", true, 1e-3}});
  const auto c = compare_kernels(before, tally_kernels(fewer));
  EXPECT_TRUE(slower_others(c).empty()) << "nothing got slower: only the launch counts tell";
  const auto changed = launches_changed(c);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(launches_text(*changed[0]), "k 6 -> 3 launches");
  EXPECT_EQ(launches_text(*changed[1]), "other 3 -> 0 launches");
  EXPECT_TRUE(launches_changed(compare_kernels(before, before)).empty());
}

TEST(kernel_times, a_kernel_launched_on_one_side_only_has_no_number_on_the_other) {
  std::vector<std::vector<launch_time>> before{{{"k", true, 1e-3}}};
  std::vector<std::vector<launch_time>> after{{{"k", true, 5e-4}, {"extra", false, 2e-4}}};
  auto c = compare_kernels(tally_kernels(before), tally_kernels(after));
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_FALSE(c.rows[1].before);
  EXPECT_EQ(c.rows[1].verdict, kernel_verdict::slower);
  EXPECT_EQ(change_text(c.rows[1]), "extra not launched -> 0.2000 ms (noise 0.0000 ms)");
  EXPECT_EQ(change_text(*c.total), "all kernels 1.0000 -> 0.7000 ms (-30.0%, noise 0.0000 ms)");
}

TEST(kernel_times, the_comparison_reads_back_from_its_json_and_a_bad_one_is_named) {
  auto c = compare_kernels(tally_kernels(runs_of({1e-3, 2e-3, 3e-3}, {1e-4, 2e-4, 3e-4})),
                           tally_kernels(runs_of({1e-3, 1e-3, 1e-3}, {4e-4, 4e-4, 4e-4})));
  auto back = comparison_from_json(comparison_json(c));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, c);
  auto untimed = comparison_from_json(comparison_json(untimed_kernels()));
  ASSERT_TRUE(untimed) << untimed.error();
  EXPECT_FALSE(untimed->timed);
  auto bad = comparison_from_json(R"({"timed":true,"rows":[{"kernel":"k","named":true,"verdict":"quicker",)"
                                  R"("before":null,"after":null}],"total":null})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "kernels.rows[0]: unknown verdict 'quicker'");
  auto none = comparison_in_journal(R"({"job":"t","steps":[]})");
  ASSERT_TRUE(none) << none.error();
  EXPECT_FALSE(*none) << "a deploy that ended before timing has no kernels";
}

TEST(kernel_times, every_verdict_has_its_word) {
  for (auto v : all_kernel_verdicts)
    EXPECT_EQ(kernel_verdict_from_string(to_string(v)), v);
  EXPECT_FALSE(kernel_verdict_from_string("slow"));
}

} // namespace
} // namespace warpforge::deploy
