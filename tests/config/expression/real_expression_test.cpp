#include "config/expression/expression.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

using namespace warpforge::expression;

namespace {

double eval(std::string_view text, const real_values& values = {}) {
  auto e = real_expression::parse(text);
  EXPECT_TRUE(e) << text << ": " << (e ? "" : e.error().message);
  if (!e)
    return -999.0;
  auto v = e->evaluate(values);
  EXPECT_TRUE(v) << text << ": " << (v ? "" : v.error().message);
  return v ? *v : -999.0;
}

error parse_error(std::string_view text) {
  auto e = real_expression::parse(text);
  EXPECT_FALSE(e) << text << " parsed";
  return e ? error{} : e.error();
}

} // namespace

TEST(real_expression, arithmetic_follows_the_usual_precedence) {
  EXPECT_DOUBLE_EQ(eval("1 + 2 * 3"), 7.0);
  EXPECT_DOUBLE_EQ(eval("(1 + 2) * 3"), 9.0);
  EXPECT_DOUBLE_EQ(eval("10 - 4 - 3"), 3.0); // left-associative
  EXPECT_DOUBLE_EQ(eval("8 / 4 / 2"), 1.0);
  EXPECT_DOUBLE_EQ(eval("-2 * -3"), 6.0);
  EXPECT_DOUBLE_EQ(eval("10e9"), 1e10);
  EXPECT_DOUBLE_EQ(eval("1.5e-3 * 2"), 3e-3);
  EXPECT_DOUBLE_EQ(eval(".5 + 0.25"), 0.75);
}

TEST(real_expression, comparisons_and_logic_yield_one_or_zero) {
  const real_values v{{"dram_throughput", 0.91}, {"sm_throughput", 0.17}};
  EXPECT_EQ(eval("dram_throughput >= 0.6 and dram_throughput > sm_throughput", v), 1.0);
  EXPECT_EQ(eval("dram_throughput < 0.6 or sm_throughput > 0.5", v), 0.0);
  EXPECT_EQ(eval("not dram_throughput < 0.6", v), 1.0);
  EXPECT_EQ(eval("not (sm_throughput == 0.17)", v), 0.0);
  EXPECT_EQ(eval("sm_throughput != 0.17 or 1 <= 1", v), 1.0);
  // 'and' binds tighter than 'or': true or (false and false).
  EXPECT_EQ(eval("1 > 0 or 1 < 0 and 1 < 0"), 1.0);
}

TEST(real_expression, keys_are_listed_once_in_order_with_every_reference_and_its_column) {
  auto e = real_expression::parse("a_b > 1 and c < a_b");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->names(), (std::vector<std::string>{"a_b", "c"}));
  ASSERT_EQ(e->references().size(), 3u);
  EXPECT_EQ(e->references()[0].column, 1u);
  EXPECT_EQ(e->references()[1].name, "c");
  EXPECT_EQ(e->references()[1].column, 13u);
  EXPECT_EQ(e->type(), result_type::truth);
  EXPECT_EQ(real_expression::parse("a + 1")->type(), result_type::number);
}

TEST(real_expression, a_missing_metric_lists_every_absent_key_and_gives_no_value) {
  auto e = real_expression::parse("l2_hit_rate < 0.5 and l1_hit_rate < 0.3 and l2_hit_rate > 0");
  ASSERT_TRUE(e);
  auto v = e->evaluate({{"other", 1.0}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, error_kind::unknown_name);
  EXPECT_EQ(v.error().names, (std::vector<std::string>{"l2_hit_rate", "l1_hit_rate"}));
  EXPECT_EQ(v.error().message, "missing l2_hit_rate, l1_hit_rate");
  EXPECT_EQ(v.error().column, 1u);
}

TEST(real_expression, division_by_zero_is_a_failure_unless_short_circuited) {
  auto e = real_expression::parse("sectors / requests > 8");
  ASSERT_TRUE(e);
  auto v = e->evaluate({{"sectors", 10.0}, {"requests", 0.0}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, error_kind::division_by_zero);
  EXPECT_EQ(v.error().column, 9u);
  EXPECT_EQ(v.error().message, "'/' by zero (the right side is 0) in \"sectors / requests > 8\"");
  EXPECT_EQ(eval("requests > 0 and sectors / requests > 8", {{"sectors", 10.0}, {"requests", 0.0}}),
            0.0);
}

TEST(real_expression, a_non_finite_input_is_a_failure) {
  auto e = real_expression::parse("x > 1");
  auto v = e->evaluate({{"x", std::numeric_limits<double>::infinity()}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, error_kind::not_finite);
  auto huge = real_expression::parse("x * x > 1");
  v = huge->evaluate({{"x", 1e300}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, error_kind::not_finite);
  EXPECT_EQ(v.error().column, 3u);
}

TEST(real_expression, syntax_errors_name_the_column) {
  auto e = parse_error("dram_throughput >= ");
  EXPECT_EQ(e.kind, error_kind::syntax);
  EXPECT_EQ(e.column, 20u);
  EXPECT_NE(e.message.find("the end of the expression"), std::string::npos) << e.message;

  e = parse_error("(a + b");
  EXPECT_EQ(e.kind, error_kind::syntax);
  EXPECT_NE(e.message.find("')'"), std::string::npos) << e.message;

  e = parse_error("a + b)");
  EXPECT_EQ(e.column, 6u);

  e = parse_error("a # b");
  EXPECT_EQ(e.column, 3u);
  EXPECT_NE(e.message.find("'#'"), std::string::npos);

  e = parse_error("1e");
  EXPECT_EQ(e.kind, error_kind::syntax);
  e = parse_error("3abc > 1");
  EXPECT_EQ(e.kind, error_kind::syntax);
  e = parse_error("");
  EXPECT_EQ(e.column, 1u);
}

TEST(real_expression, c_style_operators_get_a_hint_to_the_word) {
  EXPECT_NE(parse_error("a > 1 && b > 1").message.find("write 'and'"), std::string::npos);
  EXPECT_NE(parse_error("a > 1 || b > 1").message.find("write 'or'"), std::string::npos);
  EXPECT_NE(parse_error("!(a > 1)").message.find("write 'not'"), std::string::npos);
  EXPECT_NE(parse_error("a = 1").message.find("'=='"), std::string::npos);
}

TEST(real_expression, comparisons_do_not_chain) {
  const auto e = parse_error("0 < a < 1");
  EXPECT_EQ(e.kind, error_kind::syntax);
  EXPECT_EQ(e.column, 7u);
}

TEST(real_expression, type_mismatches_are_parse_errors_at_the_operator) {
  auto e = parse_error("a and b > 1");
  EXPECT_EQ(e.kind, error_kind::type_mismatch);
  EXPECT_EQ(e.column, 3u);
  EXPECT_NE(e.message.find("truth value"), std::string::npos) << e.message;

  e = parse_error("(a > 1) + 2");
  EXPECT_EQ(e.kind, error_kind::type_mismatch);
  EXPECT_EQ(e.column, 9u);

  EXPECT_EQ(parse_error("not a").kind, error_kind::type_mismatch);
  EXPECT_EQ(parse_error("-(a > 1)").kind, error_kind::type_mismatch);
  EXPECT_EQ(parse_error("(a > 1) < 2").kind, error_kind::type_mismatch);
}

TEST(real_expression, nesting_beyond_the_limit_is_rejected) {
  std::string deep(max_depth + 1, '(');
  deep += "1";
  deep += std::string(max_depth + 1, ')');
  EXPECT_EQ(parse_error(deep).kind, error_kind::too_deep);
  std::string ok(max_depth, '(');
  ok += "1" + std::string(max_depth, ')');
  EXPECT_DOUBLE_EQ(eval(ok), 1.0);
}

TEST(real_expression, an_empty_expression_has_no_value) {
  const real_expression e;
  EXPECT_TRUE(e.empty());
  EXPECT_FALSE(e.evaluate(real_values{}));
}

TEST(real_expression, remainder_takes_the_dividends_sign_and_by_zero_is_a_failure) {
  EXPECT_DOUBLE_EQ(eval("7.5 % 2"), 1.5);
  EXPECT_DOUBLE_EQ(eval("-7 % 3"), -1.0);
  auto e = real_expression::parse("a % b");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->evaluate({{"a", 1.0}, {"b", 0.0}}).error().kind, error_kind::division_by_zero);
}

TEST(real_expression, there_are_no_functions_and_the_other_logic_spelling_is_named) {
  auto e = parse_error("max(a, b)");
  EXPECT_EQ(e.kind, error_kind::unknown_function);
  EXPECT_EQ(e.column, 1u);
  EXPECT_NE(e.message.find("no functions"), std::string::npos) << e.message;
  // 'and' is reserved: never a key.
  EXPECT_EQ(parse_error("and > 1").kind, error_kind::syntax);
}

TEST(real_expression, a_value_is_looked_up_once_per_evaluation_whatever_short_circuits) {
  // Every key must have a value, even one the logic would skip: a missing metric is reported,
  // never hidden behind a short-circuit.
  auto e = real_expression::parse("a > 0 and b > 0");
  ASSERT_TRUE(e);
  auto v = e->evaluate({{"a", -1.0}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().names, std::vector<std::string>{"b"});
  EXPECT_EQ(v.error().column, 11u);
}
