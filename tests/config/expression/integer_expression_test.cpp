#include "config/expression/expression.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace warpforge::expression {
namespace {

// Parses and evaluates `text`; fails the test on a parse error.
expected<std::int64_t, error> eval(const std::string& text, const integer_values& variables = {}) {
  auto parsed = integer_expression::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text << ": " << parsed.error().message;
  if (!parsed)
    return unexpected(parsed.error());
  return parsed->evaluate(variables);
}

std::int64_t value_of(const std::string& text, const integer_values& variables = {}) {
  auto value = eval(text, variables);
  EXPECT_TRUE(value.has_value()) << text << ": " << (value ? "" : value.error().message);
  return value ? *value : 0;
}

error parse_error_of(const std::string& text) {
  auto parsed = integer_expression::parse(text);
  EXPECT_FALSE(parsed.has_value()) << text << " parsed";
  return parsed ? error{} : parsed.error();
}

error evaluation_error_of(const std::string& text, const integer_values& variables = {}) {
  auto value = eval(text, variables);
  EXPECT_FALSE(value.has_value()) << text << " evaluated to " << (value ? *value : 0);
  return value ? error{} : value.error();
}

TEST(ExpressionErrorKind, EveryValueRoundTripsThroughItsName) {
  for (const auto kind : all_error_kinds)
    EXPECT_EQ(error_kind_from_string(to_string(kind)), kind) << to_string(kind);
  EXPECT_EQ(error_kind_from_string("nonsense"), std::nullopt);
}

TEST(IntegerExpression, IntegersNamesAndArithmeticFollowCPrecedence) {
  EXPECT_EQ(value_of("42"), 42);
  EXPECT_EQ(value_of("1_048_576"), 1048576);
  EXPECT_EQ(value_of("2 + 3 * 4"), 14);
  EXPECT_EQ(value_of("(2 + 3) * 4"), 20);
  EXPECT_EQ(value_of("10 - 4 - 3"), 3);
  EXPECT_EQ(value_of("100 / 10 / 5"), 2);
  EXPECT_EQ(value_of("N * M + 1", {{"N", 6}, {"M", 7}}), 43);
  EXPECT_EQ(value_of("  TILE_X*TILE_Y  ", {{"TILE_X", 32}, {"TILE_Y", 8}}), 256);
}

TEST(IntegerExpression, DivisionTruncatesTowardZeroAndModuloTakesTheDividendsSign) {
  EXPECT_EQ(value_of("7 / 2"), 3);
  EXPECT_EQ(value_of("-7 / 2"), -3);
  EXPECT_EQ(value_of("7 % 3"), 1);
  EXPECT_EQ(value_of("-7 % 3"), -1);
  EXPECT_EQ(value_of("7 % -3"), 1);
}

TEST(IntegerExpression, UnaryOperatorsNest) {
  EXPECT_EQ(value_of("-3"), -3);
  EXPECT_EQ(value_of("--3"), 3);
  EXPECT_EQ(value_of("+3"), 3);
  EXPECT_EQ(value_of("-(2 + 3) * 2"), -10);
  EXPECT_EQ(value_of("!0"), 1);
  EXPECT_EQ(value_of("!5"), 0);
  EXPECT_EQ(value_of("!!5"), 1);
  EXPECT_EQ(value_of("!0 < 2"), 1) << "'!' is unary, as in C: (!0) < 2";
}

TEST(IntegerExpression, ComparisonsAndLogicYieldOneOrZero) {
  EXPECT_EQ(value_of("3 < 4"), 1);
  EXPECT_EQ(value_of("4 < 4"), 0);
  EXPECT_EQ(value_of("4 <= 4"), 1);
  EXPECT_EQ(value_of("5 > 4"), 1);
  EXPECT_EQ(value_of("4 >= 5"), 0);
  EXPECT_EQ(value_of("4 == 4"), 1);
  EXPECT_EQ(value_of("4 != 4"), 0);
  EXPECT_EQ(value_of("1 && 2"), 1);
  EXPECT_EQ(value_of("1 && 0"), 0);
  EXPECT_EQ(value_of("0 || 7"), 1);
  EXPECT_EQ(value_of("0 || 0"), 0);
  EXPECT_EQ(value_of("1 + 1 == 2 && 3 > 2"), 1);
  EXPECT_EQ(value_of("TILE_X*TILE_Y <= 1024", {{"TILE_X", 32}, {"TILE_Y", 32}}), 1);
  EXPECT_EQ(value_of("TILE_X*TILE_Y <= 1024", {{"TILE_X", 64}, {"TILE_Y", 32}}), 0);
}

TEST(IntegerExpression, LogicShortCircuitsSoGuardsWork) {
  EXPECT_EQ(value_of("B != 0 && N / B > 2", {{"B", 0}, {"N", 10}}), 0);
  EXPECT_EQ(value_of("B == 0 || N / B > 2", {{"B", 0}, {"N", 10}}), 1);
  EXPECT_EQ(value_of("0 && UNKNOWN"), 0);
}

TEST(IntegerExpression, FunctionsComputeTheirDocumentedValues) {
  EXPECT_EQ(value_of("ceil_div(1000, 256)"), 4);
  EXPECT_EQ(value_of("ceil_div(1024, 256)"), 4);
  EXPECT_EQ(value_of("ceil_div(-7, 2)"), -3);
  EXPECT_EQ(value_of("ceil_div(7, -2)"), -3);
  EXPECT_EQ(value_of("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(value_of("round_up(1000, 256)"), 1024);
  EXPECT_EQ(value_of("min(3, -4)"), -4);
  EXPECT_EQ(value_of("max(3, -4)"), 3);
  EXPECT_EQ(value_of("pow(3, 4)"), 81);
  EXPECT_EQ(value_of("pow(-2, 3)"), -8);
  EXPECT_EQ(value_of("pow(-1, 5)"), -1);
  EXPECT_EQ(value_of("pow(-1, 1000000000000)"), 1);
  EXPECT_EQ(value_of("pow(0, 0)"), 1);
  EXPECT_EQ(value_of("pow(7, 0)"), 1);
  EXPECT_EQ(value_of("pow2(10)"), 1024);
  EXPECT_EQ(value_of("pow2(0)"), 1);
  EXPECT_EQ(value_of("log2(1)"), 0);
  EXPECT_EQ(value_of("log2(1024)"), 10);
  EXPECT_EQ(value_of("log2(1023)"), 9);
  EXPECT_EQ(value_of("ceil_div(N, BLOCK) * BLOCK", {{"N", 1000}, {"BLOCK", 128}}), 1024);
}

TEST(IntegerExpression, NamesListsEachVariableOnceInOrderAndNoFunctions) {
  auto parsed = integer_expression::parse("ceil_div(N, BLOCK) * N + min(M, BLOCK)");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->names(), (std::vector<std::string>{"N", "BLOCK", "M"}));
  EXPECT_EQ(parsed->text(), "ceil_div(N, BLOCK) * N + min(M, BLOCK)");
}

TEST(IntegerExpression, ConstantEvaluatesToItsValue) {
  const auto constant = integer_expression::constant(-17);
  EXPECT_EQ(constant.text(), "-17");
  EXPECT_TRUE(constant.names().empty());
  EXPECT_EQ(*constant.evaluate(integer_values{}), -17);
}

TEST(IntegerExpression, LookupFunctionsAreAskedForNames) {
  auto parsed = integer_expression::parse("X + 1");
  ASSERT_TRUE(parsed.has_value());
  const integer_expression::lookup lookup =
    [](std::string_view name) -> std::optional<std::int64_t> {
    if (name == "X")
      return 41;
    return std::nullopt;
  };
  EXPECT_EQ(*parsed->evaluate(lookup), 42);
}

TEST(IntegerExpression, SyntaxErrorsGiveTheColumn) {
  auto error = parse_error_of("N * (2 +");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 9u);

  error = parse_error_of("N +* 2");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 4u);

  error = parse_error_of("(N + 2");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 7u);
  EXPECT_NE(error.message.find("')'"), std::string::npos);

  error = parse_error_of("N 2");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 3u);

  error = parse_error_of("N = 2");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 3u);

  error = parse_error_of("2N");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 2u);

  error = parse_error_of("N $ 2");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 3u);

  EXPECT_EQ(parse_error_of("").kind, error_kind::syntax);
  EXPECT_EQ(parse_error_of("   ").kind, error_kind::syntax);
  EXPECT_EQ(parse_error_of("min(1 2)").kind, error_kind::syntax);
}

TEST(IntegerExpression, UnknownFunctionIsNamedWithItsColumn) {
  const auto error = parse_error_of("2 * ceil_dvi(N, 4)");
  EXPECT_EQ(error.kind, error_kind::unknown_function);
  EXPECT_EQ(error.column, 5u);
  EXPECT_NE(error.message.find("ceil_dvi"), std::string::npos);
}

TEST(IntegerExpression, WrongArityIsRejectedAtParse) {
  auto error = parse_error_of("ceil_div(N)");
  EXPECT_EQ(error.kind, error_kind::wrong_arity);
  EXPECT_NE(error.message.find("takes 2 arguments, got 1"), std::string::npos);
  EXPECT_EQ(parse_error_of("log2(1, 2)").kind, error_kind::wrong_arity);
  EXPECT_EQ(parse_error_of("max()").kind, error_kind::wrong_arity);
}

TEST(IntegerExpression, UnknownNameIsNamedWithItsColumn) {
  const auto error = evaluation_error_of("N + BLOCKS", {{"N", 1}, {"BLOCK", 2}});
  EXPECT_EQ(error.kind, error_kind::unknown_name);
  EXPECT_EQ(error.column, 5u);
  EXPECT_EQ(error.message, "unknown name 'BLOCKS'");
  EXPECT_EQ(error.names, std::vector<std::string>{"BLOCKS"});
}

TEST(IntegerExpression, DivisionAndModuloByZeroAreErrors) {
  auto error = evaluation_error_of("N / (B - 4)", {{"N", 8}, {"B", 4}});
  EXPECT_EQ(error.kind, error_kind::division_by_zero);
  EXPECT_EQ(error.column, 3u);
  EXPECT_EQ(error.message, "'/' by zero (the right side is 0) in \"N / (B - 4)\"");
  EXPECT_EQ(evaluation_error_of("5 % 0").kind, error_kind::division_by_zero);
  EXPECT_EQ(evaluation_error_of("ceil_div(5, 0)").kind, error_kind::division_by_zero);
  EXPECT_EQ(evaluation_error_of("round_up(5, 0)").kind, error_kind::division_by_zero);
}

TEST(IntegerExpression, Int64OverflowIsAnErrorNotWrapAround) {
  EXPECT_EQ(evaluation_error_of("9223372036854775807 + 1").kind, error_kind::overflow);
  EXPECT_EQ(evaluation_error_of("-9223372036854775807 - 2").kind, error_kind::overflow);
  EXPECT_EQ(evaluation_error_of("4294967296 * 4294967296").kind, error_kind::overflow);
  EXPECT_EQ(evaluation_error_of("pow(2, 63)").kind, error_kind::overflow);
  EXPECT_EQ(evaluation_error_of("round_up(9223372036854775807, 2)").kind, error_kind::overflow);
  EXPECT_EQ(evaluation_error_of("-X", {{"X", std::numeric_limits<std::int64_t>::min()}}).kind,
            error_kind::overflow);
  EXPECT_EQ(evaluation_error_of("X / -1", {{"X", std::numeric_limits<std::int64_t>::min()}}).kind,
            error_kind::overflow);
  EXPECT_EQ(value_of("X % -1", {{"X", std::numeric_limits<std::int64_t>::min()}}), 0);
  EXPECT_EQ(parse_error_of("99999999999999999999").kind, error_kind::overflow);
  EXPECT_EQ(value_of("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
}

TEST(IntegerExpression, FunctionArgumentsOutsideTheirDomainAreErrors) {
  EXPECT_EQ(evaluation_error_of("log2(0)").kind, error_kind::domain);
  EXPECT_EQ(evaluation_error_of("pow(2, -1)").kind, error_kind::domain);
  EXPECT_EQ(evaluation_error_of("pow2(63)").kind, error_kind::domain);
  EXPECT_EQ(evaluation_error_of("pow2(-1)").kind, error_kind::domain);
}

TEST(IntegerExpression, DeepNestingIsRejectedInsteadOfOverflowingTheStack) {
  const std::string deep = std::string(10000, '(') + "1" + std::string(10000, ')');
  EXPECT_EQ(parse_error_of(deep).kind, error_kind::too_deep);
  const std::string at_limit = std::string(max_depth, '(') + "1" + std::string(max_depth, ')');
  EXPECT_EQ(value_of(at_limit), 1);
  const std::string beyond = "-" + at_limit;
  EXPECT_EQ(parse_error_of(beyond).kind, error_kind::too_deep);
  EXPECT_EQ(value_of(std::string(max_depth, '-') + "3"), 3);
}

TEST(IntegerExpression, ComparisonsDoNotChain) {
  const auto error = parse_error_of("0 < N < 10");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 7u);
  EXPECT_NE(error.message.find("write 'a < b && b < c'"), std::string::npos) << error.message;
  EXPECT_EQ(parse_error_of("A == B != C").kind, error_kind::syntax);
  // Different levels are not a chain: C precedence, (1 < 2) == (3 < 4).
  EXPECT_EQ(value_of("1 < 2 == 3 < 4"), 1);
  EXPECT_EQ(value_of("(1 < 2) < 2"), 1);
}

TEST(IntegerExpression, WordLogicAndFractionsAreErrorsThatSayWhatToWrite) {
  auto error = parse_error_of("N > 1 and M > 1");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 7u);
  EXPECT_EQ(error.message, "'and' is not an operator here; write '&&'");
  EXPECT_NE(parse_error_of("(N or M)").message.find("write '||'"), std::string::npos);
  error = parse_error_of("N * 1.5");
  EXPECT_EQ(error.kind, error_kind::syntax);
  EXPECT_EQ(error.column, 6u);
  EXPECT_NE(error.message.find("whole numbers"), std::string::npos) << error.message;
  // Outside an operator's place the words are names like any other.
  EXPECT_EQ(value_of("and + or", {{"and", 1}, {"or", 2}}), 3);
}

TEST(IntegerExpression, TheTypeIsTruthForComparisonsAndLogic) {
  EXPECT_EQ(integer_expression::parse("N < 4 && M")->type(), result_type::truth);
  EXPECT_EQ(integer_expression::parse("N * 4")->type(), result_type::number);
  for (const auto type : all_result_types)
    EXPECT_EQ(result_type_from_string(to_string(type)), type);
}

TEST(IntegerExpression, DefaultConstructedIsEmptyAndFailsToEvaluate) {
  const integer_expression empty;
  EXPECT_TRUE(empty.empty());
  auto value = empty.evaluate(integer_values{});
  ASSERT_FALSE(value.has_value());
  EXPECT_EQ(value.error().kind, error_kind::syntax);
}

TEST(IntegerExpression, CopiesShareTheTreeAndCompareByText) {
  auto parsed = integer_expression::parse("N + 1");
  ASSERT_TRUE(parsed.has_value());
  const integer_expression copy = *parsed;
  EXPECT_EQ(copy, *parsed);
  EXPECT_EQ(*copy.evaluate(integer_values{{"N", 1}}), 2);
}

} // namespace
} // namespace warpforge::expression
