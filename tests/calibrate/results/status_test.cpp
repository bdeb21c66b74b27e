#include "calibrate/results/status.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace warpforge::calibrate;

namespace {

// An L1-latency-like parameter: cycles, a range of [10, 100].
parameter l1_latency() {
  parameter p;
  p.name = "l1_hit_latency";
  p.unit = "cycles";
  p.range_min = 10;
  p.range_max = 100;
  return p;
}

const known_value h100{"sm_90", 33.0, "a published table"};

// Stats of `n` trials around `median` with coefficient of variation `cv`.
trial_stats stats(double median, double cv, std::size_t n = 10) {
  trial_stats s;
  s.n = n;
  s.median = s.mean = median;
  s.cv = cv;
  s.stddev = cv * median;
  return s;
}

bool mentions(const verdict& v, const std::string& word) {
  for (const auto& note : v.notes)
    if (note.find(word) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST(status, every_status_is_spelled_as_the_seed_and_reads_back) {
  const std::set<std::string> seed{"PASS",          "PASS_WITH_NOTE", "HIGH_VARIANCE",
                                   "KNOWN_VALUE_MISMATCH", "OUT_OF_RANGE", "SASS_MISMATCH",
                                   "COMPILE_ERROR", "RUNTIME_ERROR",  "TIMEOUT",
                                   "NO_DATA"};
  std::set<std::string> spelled;
  for (status s : all_statuses) {
    spelled.insert(std::string{to_string(s)});
    EXPECT_EQ(status_from_string(to_string(s)), s);
  }
  EXPECT_EQ(spelled, seed);
  EXPECT_EQ(status_from_string("pass"), std::nullopt);
  EXPECT_EQ(status_from_string(""), std::nullopt);
}

TEST(status, only_pass_and_pass_with_note_are_passing) {
  for (status s : all_statuses)
    EXPECT_EQ(is_passing(s), s == status::pass || s == status::pass_with_note) << to_string(s);
}

TEST(status, a_stable_value_near_the_known_one_inside_the_range_passes) {
  const auto v = judge(l1_latency(), stats(34.0, 0.01), h100); // +3%, CV 1%
  EXPECT_EQ(v.result, status::pass);
  EXPECT_TRUE(v.notes.empty());
}

TEST(status, without_a_known_value_the_other_rules_decide) {
  EXPECT_EQ(judge(l1_latency(), stats(80.0, 0.01), std::nullopt).result, status::pass);
}

TEST(status, a_cv_of_five_percent_or_more_is_high_variance) {
  const auto v = judge(l1_latency(), stats(33.0, 0.05), h100);
  EXPECT_EQ(v.result, status::high_variance);
  EXPECT_TRUE(mentions(v, "CV 5.0%"));
  EXPECT_EQ(judge(l1_latency(), stats(33.0, 0.049), h100).result, status::pass_with_note);
}

TEST(status, more_than_ten_percent_from_the_known_value_is_a_mismatch) {
  const auto v = judge(l1_latency(), stats(37.0, 0.01), h100); // +12.1%
  EXPECT_EQ(v.result, status::known_value_mismatch);
  EXPECT_TRUE(mentions(v, "+12.1%"));
  EXPECT_TRUE(mentions(v, "a published table"));
  EXPECT_EQ(judge(l1_latency(), stats(36.3, 0.01), h100).result, status::pass); // +10% exactly
  EXPECT_EQ(judge(l1_latency(), stats(29.0, 0.01), h100).result, status::known_value_mismatch);
}

TEST(status, outside_the_reasonable_range_is_out_of_range_with_a_recheck_note) {
  const auto v = judge(l1_latency(), stats(150.0, 0.01), std::nullopt);
  EXPECT_EQ(v.result, status::out_of_range);
  EXPECT_TRUE(mentions(v, "recheck the methodology"));
  EXPECT_EQ(judge(l1_latency(), stats(5.0, 0.01), std::nullopt).result, status::out_of_range);
  EXPECT_EQ(judge(l1_latency(), stats(100.0, 0.01), std::nullopt).result, status::pass); // edge in
}

TEST(status, a_parameter_without_a_range_is_not_range_checked) {
  parameter p = l1_latency();
  p.range_min = p.range_max = 0;
  EXPECT_EQ(judge(p, stats(1e6, 0.01), std::nullopt).result, status::pass);
}

TEST(status, high_variance_comes_first_and_every_failing_rule_is_noted) {
  const auto v = judge(l1_latency(), stats(150.0, 0.2), h100);
  EXPECT_EQ(v.result, status::high_variance);
  EXPECT_EQ(v.notes.size(), 3u);
  EXPECT_EQ(judge(l1_latency(), stats(150.0, 0.01), h100).result, status::known_value_mismatch);
}

TEST(status, no_kept_trial_is_no_data_and_says_why) {
  const auto none = judge(l1_latency(), trial_stats{}, h100);
  EXPECT_EQ(none.result, status::no_data);
  EXPECT_TRUE(mentions(none, "no trial"));
  trial_stats invalid;
  invalid.invalid = 3;
  const auto bad = judge(l1_latency(), invalid, h100);
  EXPECT_EQ(bad.result, status::no_data);
  EXPECT_TRUE(mentions(bad, "3 trial(s)"));
}

TEST(status, a_pass_above_the_two_percent_target_carries_a_note) {
  const auto v = judge(l1_latency(), stats(33.0, 0.03), h100);
  EXPECT_EQ(v.result, status::pass_with_note);
  EXPECT_TRUE(mentions(v, "2.0% target"));
}

TEST(status, a_pass_with_throttled_trials_or_few_trials_carries_a_note) {
  trial_stats throttled = stats(33.0, 0.01);
  throttled.discarded = 2;
  const auto v = judge(l1_latency(), throttled, h100);
  EXPECT_EQ(v.result, status::pass_with_note);
  EXPECT_TRUE(mentions(v, "throttled"));
  const auto few = judge(l1_latency(), stats(33.0, 0.0, 2), h100);
  EXPECT_EQ(few.result, status::pass_with_note);
  EXPECT_TRUE(mentions(few, "only 2 trial(s)"));
}

TEST(status, the_thresholds_are_the_callers) {
  judge_rules strict;
  strict.max_cv = 0.01;
  strict.known_tolerance = 0.02;
  EXPECT_EQ(judge(l1_latency(), stats(33.0, 0.015), h100, strict).result, status::high_variance);
  EXPECT_EQ(judge(l1_latency(), stats(34.0, 0.005), h100, strict).result,
            status::known_value_mismatch);
}

TEST(status, the_engine_statuses_are_failures_the_rule_never_gives) {
  // SASS_MISMATCH, COMPILE_ERROR, RUNTIME_ERROR and TIMEOUT stop a parameter before or during
  // timing: judge() (which sees measured trials) never returns them, and none is passing.
  for (status s : {status::sass_mismatch, status::compile_error, status::runtime_error, status::timeout}) {
    EXPECT_FALSE(is_passing(s));
    for (double cv : {0.0, 0.03, 0.5})
      for (double median : {0.0, 33.0, 1e9})
        EXPECT_NE(judge(l1_latency(), stats(median, cv), h100).result, s);
  }
}

TEST(status, relative_delta_is_against_the_known_value) {
  EXPECT_NEAR(*relative_delta(36.3, h100), 0.1, 1e-12);
  EXPECT_NEAR(*relative_delta(29.7, h100), -0.1, 1e-12);
  EXPECT_EQ(relative_delta(1.0, std::nullopt), std::nullopt);
  EXPECT_EQ(relative_delta(1.0, known_value{"sm_90", 0.0, "x"}), std::nullopt);
}

TEST(status, every_published_value_of_the_built_in_catalog_passes_its_own_rule) {
  auto cat = catalog::built_in();
  ASSERT_TRUE(cat) << cat.error();
  std::size_t checked = 0;
  for (const parameter& p : cat->parameters())
    for (const known_value& k : p.known) {
      const auto v = judge(p, stats(k.value, 0.01), k);
      EXPECT_EQ(v.result, status::pass) << p.name << " " << k.arch;
      ++checked;
    }
  EXPECT_GT(checked, 10u);
}
