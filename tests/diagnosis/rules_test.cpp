#include "diagnosis/rules.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace warpforge::diagnosis;
using warpforge::toml_reader::placed_error;
using warpforge::toml_reader::placed_errors;
using namespace warpforge::diagnosis::testing;

namespace {

rule_evaluation run(const metric_values& measured) {
  const metric_schema& schema = builtin_metric_schema();
  return evaluate_rules(builtin_rules(), schema.complete(measured).values, schema);
}

std::vector<std::string> fired_ids(const rule_evaluation& r) {
  std::vector<std::string> ids;
  for (const auto& f : r.fired)
    ids.push_back(f.rule_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

placed_errors rule_errors(std::string_view text) {
  auto parsed = parse_rules(text, "rules.toml", builtin_metric_schema());
  EXPECT_FALSE(parsed) << "the rules loaded";
  return parsed ? placed_errors{} : parsed.error();
}

const placed_error* find_error(const placed_errors& errors, std::string_view key) {
  for (const auto& e : errors)
    if (e.key == key)
      return &e;
  return nullptr;
}

constexpr std::string_view one_rule = R"([[rule]]
id = "low_l2_hit"
severity = "info"
when = "l2_hit_rate < 0.5"
finding = "Low L2 hit rate: {l2_hit_rate}."
action = "Tile."
source = "Kernelking low_l2_hit.md"
)";

} // namespace

TEST(rules, every_severity_and_outcome_round_trips_through_its_name) {
  for (auto level : all_severities)
    EXPECT_EQ(severity_from_string(to_string(level)), level);
  for (auto outcome : all_rule_outcomes)
    EXPECT_EQ(rule_outcome_from_string(to_string(outcome)), outcome);
  EXPECT_FALSE(severity_from_string("error"));
  EXPECT_FALSE(rule_outcome_from_string("skipped"));
}

TEST(rules, the_builtin_matrix_defines_every_rule_the_method_catalog_triggers_on) {
  const rule_set& rules = builtin_rules();
  for (const auto id : catalog_rule_ids)
    EXPECT_NE(rules.find(id), nullptr) << id;
  for (const auto& r : rules.rules()) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_FALSE(r.action.empty()) << r.id;
    EXPECT_EQ(r.when.type(), warpforge::expression::result_type::truth) << r.id;
  }
}

TEST(rules, a_copy_kernel_is_memory_bound_and_waits_on_global_loads) {
  const rule_evaluation r = run(copy_kernel());
  EXPECT_EQ(r.outcome("memory_bound"), rule_outcome::fired);
  EXPECT_EQ(r.outcome("compute_bound"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("latency_bound"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("poor_coalescing"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("low_occupancy"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("register_limited"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("bank_conflicts"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("spills"), rule_outcome::not_fired);
  EXPECT_EQ(fired_ids(r), (std::vector<std::string>{"low_ipc", "low_l1_hit", "memory_bound",
                                                    "stall_long_scoreboard", "waves_high"}));
  // Critical first.
  ASSERT_FALSE(r.fired.empty());
  EXPECT_EQ(r.fired.front().rule_id, "memory_bound");
  EXPECT_EQ(r.fired.front().text,
            "Memory-bound: memory throughput is 91.0 % of peak (DRAM 91.0 %), compute 17.2 %.");
  EXPECT_NE(r.fired.front().source.find("KernelAgent"), std::string::npos);
}

TEST(rules, a_naive_transpose_has_poorly_coalesced_stores) {
  const rule_evaluation r = run(naive_transpose());
  EXPECT_EQ(r.outcome("poor_coalescing"), rule_outcome::fired);
  EXPECT_EQ(r.outcome("memory_bound"), rule_outcome::fired);
  EXPECT_EQ(r.outcome("stall_lg_throttle"), rule_outcome::fired);
  const auto f = std::find_if(r.fired.begin(), r.fired.end(),
                              [](const finding& x) { return x.rule_id == "poor_coalescing"; });
  ASSERT_NE(f, r.fired.end());
  // 16,777,216 store sectors / 524,288 requests = 32 sectors per request.
  EXPECT_EQ(f->text,
            "Uncoalesced global access: loads use 100.0 % of each sector (4 sectors/request), "
            "stores 12.5 % (32 sectors/request).");
  EXPECT_EQ(f->level, severity::warning);
}

TEST(rules, a_register_heavy_kernel_is_occupancy_and_register_limited) {
  const rule_evaluation r = run(register_heavy_stencil());
  EXPECT_EQ(r.outcome("low_occupancy"), rule_outcome::fired);
  EXPECT_EQ(r.outcome("register_limited"), rule_outcome::fired);
  EXPECT_EQ(r.outcome("latency_bound"), rule_outcome::fired);
  EXPECT_EQ(r.outcome("memory_bound"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("poor_coalescing"), rule_outcome::not_fired);
  EXPECT_EQ(r.outcome("waves_low"), rule_outcome::not_fired);
  const auto f = std::find_if(r.fired.begin(), r.fired.end(),
                              [](const finding& x) { return x.rule_id == "register_limited"; });
  ASSERT_NE(f, r.fired.end());
  EXPECT_EQ(f->text,
            "Registers limit occupancy: 128 registers/thread allow 2 blocks per SM, the warp "
            "limit 8 blocks.");
}

TEST(rules, a_rule_over_an_unmeasured_metric_is_not_evaluated_and_says_which) {
  metric_values measured = copy_kernel();
  measured.erase("l2_hit_rate");
  const rule_evaluation r = run(measured);
  EXPECT_EQ(r.outcome("low_l2_hit"), rule_outcome::not_evaluated);
  const auto u = std::find_if(r.not_evaluated.begin(), r.not_evaluated.end(),
                              [](const unevaluated_rule& x) { return x.rule_id == "low_l2_hit"; });
  ASSERT_NE(u, r.not_evaluated.end());
  EXPECT_EQ(u->problem.kind, warpforge::expression::error_kind::unknown_name);
  EXPECT_EQ(u->problem.names, std::vector<std::string>{"l2_hit_rate"});
  EXPECT_EQ(u->problem.message, "missing l2_hit_rate");
  // Nothing measured: nothing fires, every rule is reported.
  const rule_evaluation empty = run({});
  EXPECT_TRUE(empty.fired.empty());
  EXPECT_TRUE(empty.not_fired.empty());
  EXPECT_EQ(empty.not_evaluated.size(), builtin_rules().rules().size());
}

TEST(rules, a_template_fills_values_with_units_and_marks_absent_ones) {
  const metric_schema& schema = builtin_metric_schema();
  EXPECT_EQ(fill_template("hit {l2_hit_rate}, {duration}; {dram_bytes} moved",
                          {{"l2_hit_rate", 0.4}, {"duration", 2.5e-3}}, schema),
            "hit 40.0 %, 2.5 ms; n/a moved");
}

TEST(rules, a_small_matrix_parses) {
  auto rules = parse_rules(one_rule, "rules.toml", builtin_metric_schema());
  ASSERT_TRUE(rules) << to_string(rules.error());
  ASSERT_EQ(rules->rules().size(), 1u);
  EXPECT_EQ(rules->rules()[0].line, 1u);
  EXPECT_EQ(rules->rules()[0].level, severity::info);
}

TEST(rules, an_unknown_metric_in_a_condition_is_reported_at_its_column) {
  std::string text{one_rule};
  text.replace(text.find("l2_hit_rate < 0.5"), 17, "l2_hit_rte < 0.5");
  const auto errors = rule_errors(text);
  const placed_error* e = find_error(errors, "rule.low_l2_hit.when");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->line, 4u);
  EXPECT_EQ(e->column, 8u + 1u); // the quote is column 8, the key starts right after it
  EXPECT_EQ(e->message, "unknown metric 'l2_hit_rte'");
  EXPECT_EQ(e->hint, "did you mean 'l2_hit_rate'?");
}

TEST(rules, a_condition_that_is_a_number_or_does_not_parse_is_rejected) {
  std::string number{one_rule};
  number.replace(number.find("l2_hit_rate < 0.5"), 17, "l2_hit_rate * 2");
  const placed_error* e = find_error(rule_errors(number), "rule.low_l2_hit.when");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("truth value"), std::string::npos);

  std::string broken{one_rule};
  broken.replace(broken.find("l2_hit_rate < 0.5"), 17, "l2_hit_rate < 0.5 &&");
  const auto errors = rule_errors(broken);
  e = find_error(errors, "rule.low_l2_hit.when");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->column, 8u + 19u);
  EXPECT_NE(e->message.find("write 'and'"), std::string::npos);
}

TEST(rules, a_bad_severity_template_or_duplicate_id_is_reported) {
  std::string text{one_rule};
  text.replace(text.find("\"info\""), 6, "\"error\"");
  text.replace(text.find("{l2_hit_rate}"), 13, "{l2_hit}");
  text += "\n" + std::string{one_rule};
  const auto errors = rule_errors(text);
  const placed_error* level = find_error(errors, "rule.low_l2_hit.severity");
  ASSERT_NE(level, nullptr) << to_string(errors);
  EXPECT_EQ(level->line, 3u);
  const placed_error* placeholder = find_error(errors, "rule.low_l2_hit.finding");
  ASSERT_NE(placeholder, nullptr) << to_string(errors);
  EXPECT_EQ(placeholder->message, "unknown metric 'l2_hit'");
  const placed_error* duplicate = find_error(errors, "rule.low_l2_hit.id");
  ASSERT_NE(duplicate, nullptr) << to_string(errors);
  EXPECT_EQ(duplicate->line, 10u);
  EXPECT_EQ(duplicate->hint, "first defined on line 1");
}

TEST(rules, an_unclosed_placeholder_and_an_empty_source_are_reported) {
  std::string text{one_rule};
  text.replace(text.find("{l2_hit_rate}"), 13, "{l2_hit_rate");
  text.replace(text.find("\"Kernelking low_l2_hit.md\""), 26, "\"\"");
  const auto errors = rule_errors(text);
  const placed_error* placeholder = find_error(errors, "rule.low_l2_hit.finding");
  ASSERT_NE(placeholder, nullptr) << to_string(errors);
  EXPECT_NE(placeholder->message.find("'{' without '}'"), std::string::npos);
  ASSERT_NE(find_error(errors, "rule.low_l2_hit.source"), nullptr) << to_string(errors);
}

TEST(rules, the_data_file_in_the_tree_matches_the_builtin) {
  auto loaded =
      load_rules(std::filesystem::path{WARPFORGE_SOURCE_DIR} / "diagnosis" / "data" / "rules.toml",
                 builtin_metric_schema());
  ASSERT_TRUE(loaded) << to_string(loaded.error());
  EXPECT_EQ(loaded->rules().size(), builtin_rules().rules().size());
}
