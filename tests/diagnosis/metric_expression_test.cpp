#include "diagnosis/metric_expression.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace warpforge::diagnosis;

namespace {

double eval(std::string_view text, const metric_values& values = {}) {
  auto e = metric_expression::parse(text);
  EXPECT_TRUE(e) << text << ": " << (e ? "" : e.error().message);
  if (!e)
    return -999.0;
  auto v = e->evaluate(values);
  EXPECT_TRUE(v) << text << ": " << (v ? "" : v.error().message);
  return v ? *v : -999.0;
}

expression_error parse_error(std::string_view text) {
  auto e = metric_expression::parse(text);
  EXPECT_FALSE(e) << text << " parsed";
  return e ? expression_error{} : e.error();
}

} // namespace

TEST(metric_expression, every_error_kind_and_failure_round_trips_through_its_name) {
  for (auto kind : all_expression_error_kinds)
    EXPECT_EQ(expression_error_kind_from_string(to_string(kind)), kind);
  for (auto failure : all_evaluation_failures)
    EXPECT_EQ(evaluation_failure_from_string(to_string(failure)), failure);
  EXPECT_FALSE(expression_error_kind_from_string("oops"));
  EXPECT_FALSE(evaluation_failure_from_string("oops"));
}

TEST(metric_expression, arithmetic_follows_the_usual_precedence) {
  EXPECT_DOUBLE_EQ(eval("1 + 2 * 3"), 7.0);
  EXPECT_DOUBLE_EQ(eval("(1 + 2) * 3"), 9.0);
  EXPECT_DOUBLE_EQ(eval("10 - 4 - 3"), 3.0); // left-associative
  EXPECT_DOUBLE_EQ(eval("8 / 4 / 2"), 1.0);
  EXPECT_DOUBLE_EQ(eval("-2 * -3"), 6.0);
  EXPECT_DOUBLE_EQ(eval("10e9"), 1e10);
  EXPECT_DOUBLE_EQ(eval("1.5e-3 * 2"), 3e-3);
  EXPECT_DOUBLE_EQ(eval(".5 + 0.25"), 0.75);
}

TEST(metric_expression, comparisons_and_logic_yield_one_or_zero) {
  const metric_values v{{"dram_throughput", 0.91}, {"sm_throughput", 0.17}};
  EXPECT_EQ(eval("dram_throughput >= 0.6 and dram_throughput > sm_throughput", v), 1.0);
  EXPECT_EQ(eval("dram_throughput < 0.6 or sm_throughput > 0.5", v), 0.0);
  EXPECT_EQ(eval("not dram_throughput < 0.6", v), 1.0);
  EXPECT_EQ(eval("not (sm_throughput == 0.17)", v), 0.0);
  EXPECT_EQ(eval("sm_throughput != 0.17 or 1 <= 1", v), 1.0);
  // 'and' binds tighter than 'or': true or (false and false).
  EXPECT_EQ(eval("1 > 0 or 1 < 0 and 1 < 0"), 1.0);
}

TEST(metric_expression, keys_are_listed_once_in_order_with_every_reference_and_its_column) {
  auto e = metric_expression::parse("a_b > 1 and c < a_b");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->keys(), (std::vector<std::string>{"a_b", "c"}));
  ASSERT_EQ(e->references().size(), 3u);
  EXPECT_EQ(e->references()[0].column, 1u);
  EXPECT_EQ(e->references()[1].key, "c");
  EXPECT_EQ(e->references()[1].column, 13u);
  EXPECT_EQ(e->type(), expression_type::truth);
  EXPECT_EQ(metric_expression::parse("a + 1")->type(), expression_type::number);
}

TEST(metric_expression, a_missing_metric_lists_every_absent_key_and_gives_no_value) {
  auto e = metric_expression::parse("l2_hit_rate < 0.5 and l1_hit_rate < 0.3 and l2_hit_rate > 0");
  ASSERT_TRUE(e);
  auto v = e->evaluate({{"other", 1.0}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().failure, evaluation_failure::missing_metrics);
  EXPECT_EQ(v.error().missing, (std::vector<std::string>{"l2_hit_rate", "l1_hit_rate"}));
  EXPECT_EQ(v.error().message, "missing l2_hit_rate, l1_hit_rate");
}

TEST(metric_expression, division_by_zero_is_a_failure_unless_short_circuited) {
  auto e = metric_expression::parse("sectors / requests > 8");
  ASSERT_TRUE(e);
  auto v = e->evaluate({{"sectors", 10.0}, {"requests", 0.0}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().failure, evaluation_failure::division_by_zero);
  EXPECT_NE(v.error().message.find("column 9"), std::string::npos) << v.error().message;
  EXPECT_EQ(eval("requests > 0 and sectors / requests > 8", {{"sectors", 10.0}, {"requests", 0.0}}),
            0.0);
}

TEST(metric_expression, a_non_finite_input_is_a_failure) {
  auto e = metric_expression::parse("x > 1");
  auto v = e->evaluate({{"x", std::numeric_limits<double>::infinity()}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().failure, evaluation_failure::not_finite);
}

TEST(metric_expression, syntax_errors_name_the_column) {
  auto e = parse_error("dram_throughput >= ");
  EXPECT_EQ(e.kind, expression_error_kind::syntax);
  EXPECT_EQ(e.column, 20u);
  EXPECT_NE(e.message.find("end of expression"), std::string::npos) << e.message;

  e = parse_error("(a + b");
  EXPECT_EQ(e.kind, expression_error_kind::syntax);
  EXPECT_NE(e.message.find("')'"), std::string::npos) << e.message;

  e = parse_error("a + b)");
  EXPECT_EQ(e.column, 6u);

  e = parse_error("a # b");
  EXPECT_EQ(e.column, 3u);
  EXPECT_NE(e.message.find("'#'"), std::string::npos);

  e = parse_error("1e");
  EXPECT_EQ(e.kind, expression_error_kind::syntax);
  e = parse_error("3abc > 1");
  EXPECT_EQ(e.kind, expression_error_kind::syntax);
  e = parse_error("");
  EXPECT_EQ(e.column, 1u);
}

TEST(metric_expression, c_style_operators_get_a_hint_to_the_word) {
  EXPECT_NE(parse_error("a > 1 && b > 1").message.find("write 'and'"), std::string::npos);
  EXPECT_NE(parse_error("a > 1 || b > 1").message.find("write 'or'"), std::string::npos);
  EXPECT_NE(parse_error("!(a > 1)").message.find("write 'not'"), std::string::npos);
  EXPECT_NE(parse_error("a = 1").message.find("'=='"), std::string::npos);
}

TEST(metric_expression, comparisons_do_not_chain) {
  const auto e = parse_error("0 < a < 1");
  EXPECT_EQ(e.kind, expression_error_kind::syntax);
  EXPECT_EQ(e.column, 7u);
}

TEST(metric_expression, type_mismatches_are_parse_errors_at_the_operator) {
  auto e = parse_error("a and b > 1");
  EXPECT_EQ(e.kind, expression_error_kind::type_mismatch);
  EXPECT_EQ(e.column, 3u);
  EXPECT_NE(e.message.find("truth value"), std::string::npos) << e.message;

  e = parse_error("(a > 1) + 2");
  EXPECT_EQ(e.kind, expression_error_kind::type_mismatch);
  EXPECT_EQ(e.column, 9u);

  EXPECT_EQ(parse_error("not a").kind, expression_error_kind::type_mismatch);
  EXPECT_EQ(parse_error("-(a > 1)").kind, expression_error_kind::type_mismatch);
  EXPECT_EQ(parse_error("(a > 1) < 2").kind, expression_error_kind::type_mismatch);
}

TEST(metric_expression, nesting_beyond_the_limit_is_rejected) {
  std::string deep(max_metric_expression_depth + 1, '(');
  deep += "1";
  deep += std::string(max_metric_expression_depth + 1, ')');
  EXPECT_EQ(parse_error(deep).kind, expression_error_kind::too_deep);
  std::string ok(max_metric_expression_depth, '(');
  ok += "1" + std::string(max_metric_expression_depth, ')');
  EXPECT_DOUBLE_EQ(eval(ok), 1.0);
}

TEST(metric_expression, an_empty_expression_has_no_value) {
  const metric_expression e;
  EXPECT_TRUE(e.empty());
  EXPECT_FALSE(e.evaluate({}));
}
