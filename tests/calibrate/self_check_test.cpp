// self_check: one deliberately broken catalog text per rule, each found and named with its place;
// a sound text finds nothing.
#include "calibrate/catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace warpforge::calibrate {
namespace {

// One [[parameter]] block; the fields a test changes are arguments.
struct entry {
  std::string name = "a";
  std::uint32_t priority = 1;
  std::string depends_on = "[]";
  std::string range = "[1.0, 100.0]";
  std::string known = "[]";
  std::string unit = "cycles";
  std::string technique = "a chain";
  std::string description = "what it is";
  std::string expected_sass = "[\"FFMA\"]";
  std::string metrics = "[\"smsp__inst_executed_pipe_fma.sum\"]";
  std::string category = "instruction_latency";
  std::string extra = ""; // more lines (method, literature, ...)

  std::string text() const {
    return "[[parameter]]\nname = \"" + name + "\"\ncategory = \"" + category + "\"\nunit = \"" +
           unit + "\"\npriority = " + std::to_string(priority) + "\ntechnique = \"" + technique +
           "\"\ndepends_on = " + depends_on + "\nrange = " + range +
           "\nexpected_sass = " + expected_sass + "\nvalidation_metrics = " + metrics +
           "\ndescription = \"" + description + "\"\nknown = " + known + "\n" + extra + "\n";
  }
};

std::vector<std::string> check(const std::vector<entry>& entries) {
  std::string text;
  for (const auto& e : entries)
    text += e.text();
  auto parsed = catalog::parse(text, "broken.toml");
  if (!parsed)
    return {"PARSE: " + parsed.error()};
  return self_check(*parsed);
}

// Exactly one problem, containing every fragment.
void expect_one(const std::vector<std::string>& problems,
                std::initializer_list<std::string_view> fragments) {
  ASSERT_EQ(problems.size(), 1u) << (problems.empty() ? "no problem found" : problems[0]);
  for (auto fragment : fragments)
    EXPECT_NE(problems[0].find(fragment), std::string::npos)
        << "'" << fragment << "' not in: " << problems[0];
}

TEST(CalibrateSelfCheck, ASoundCatalogHasNoProblem) {
  entry b{.name = "b", .depends_on = "[\"a\"]",
          .known = "[ { arch = \"sm_90\", value = 4.0, source = \"[X]\" } ]"};
  EXPECT_TRUE(check({entry{}, b}).empty());
}

TEST(CalibrateSelfCheck, AMemoryLatencyNeedsItsMethodAndACitationOrWhatWasSearched) {
  entry bare{.category = "cache_hierarchy"};
  const auto problems = check({bare});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("needs its method"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("literature_not_found"), std::string::npos) << problems[1];
  entry searched{.category = "cache_hierarchy",
                 .extra = "method = \"one window\"\nliterature_not_found = \"papers unread\"\n"};
  EXPECT_TRUE(check({searched}).empty());
  entry cited{.category = "shared_memory",
              .extra = "method = \"one window\"\nliterature = [ { figure = \"index_chase\", arch = \"sm_90\", "
                       "gpu = \"H100\", value = 30.0, method = \"j = A[j]\", source = \"[Y]\" } ]\n"};
  EXPECT_TRUE(check({cited}).empty());
}

TEST(CalibrateSelfCheck, ALiteratureFigureNamesAFigureWarpforgeReportsAndItsMethod) {
  entry odd{.extra = "literature = [ { figure = \"bulk\", arch = \"sm_90\", gpu = \"H100\", value = 30.0, "
                     "method = \"\", source = \"[Y]\" } ]\n"};
  const auto problems = check({odd});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("'bulk' is not value, raw_chase or index_chase"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("lacks its method"), std::string::npos) << problems[1];
}

TEST(CalibrateSelfCheck, AKnownValueOutsideItsOwnRangeIsFlaggedWithItsPlace) {
  entry bad{.known = "[ { arch = \"sm_90\", value = 400.0, source = \"[X]\" } ]"};
  expect_one(check({bad}), {"broken.toml:1: a:", "known value 400", "sm_90", "outside its own range [1, 100]"});
}

TEST(CalibrateSelfCheck, ARangeWhoseLowEndIsNotBelowItsHighEndIsFlagged) {
  expect_one(check({entry{.range = "[10.0, 10.0]"}}), {"range [10, 10] is empty"});
}

TEST(CalibrateSelfCheck, AnUnknownDependencyIsFlagged) {
  expect_one(check({entry{.depends_on = "[\"clock\"]"}}), {"unknown parameter 'clock'"});
}

TEST(CalibrateSelfCheck, ARepeatedDependencyIsFlagged) {
  entry b{.name = "b", .depends_on = "[\"a\", \"a\"]"};
  expect_one(check({entry{}, b}), {"b:", "depends on a twice"});
}

TEST(CalibrateSelfCheck, ADependencyOnItselfIsFlagged) {
  expect_one(check({entry{.depends_on = "[\"a\"]"}}), {"depends on itself"});
}

TEST(CalibrateSelfCheck, ACycleIsNamedInOrderOnce) {
  entry a{.name = "a", .depends_on = "[\"c\"]"};
  entry b{.name = "b", .depends_on = "[\"a\"]"};
  entry c{.name = "c", .depends_on = "[\"b\"]"};
  expect_one(check({a, b, c}), {"dependency cycle: a -> c -> b -> a"});
}

TEST(CalibrateSelfCheck, ADependencyLaterInPriorityThanItsDependentIsFlagged) {
  entry clock{.name = "clock", .priority = 4};
  entry a{.name = "a", .priority = 1, .depends_on = "[\"clock\"]"};
  expect_one(check({clock, a}), {"a:", "depends on clock of priority 4, later than its own 1"});
}

TEST(CalibrateSelfCheck, ADuplicateNameIsFlaggedWithTheFirstLine) {
  const auto problems = check({entry{}, entry{}});
  expect_one(problems, {"broken.toml:14: a:", "duplicate name (first at line 1)"});
}

TEST(CalibrateSelfCheck, ANameOutsideLowerCaseDigitsAndUnderscoreIsFlagged) {
  expect_one(check({entry{.name = "L1-size"}}), {"L1-size:", "lower-case letters"});
}

TEST(CalibrateSelfCheck, EachEmptyTextFieldIsFlagged) {
  expect_one(check({entry{.unit = ""}}), {"unit is empty"});
  expect_one(check({entry{.technique = ""}}), {"technique is empty"});
  expect_one(check({entry{.description = ""}}), {"description is empty"});
  expect_one(check({entry{.metrics = "[]"}}), {"validation_metrics is empty"});
}

TEST(CalibrateSelfCheck, EmptyExpectedSassIsFlaggedAtEveryPriority) {
  // Every parameter, priority 4 included, has a built-in benchmark whose SASS is gated.
  expect_one(check({entry{.priority = 3, .expected_sass = "[]"}}), {"expected_sass is empty"});
  expect_one(check({entry{.priority = 4, .expected_sass = "[]"}}), {"expected_sass is empty"});
}

TEST(CalibrateSelfCheck, ARederiveFormulaOverMetricsTheProfileDoesNotReadIsFlagged) {
  entry ok{.metrics = "[\"bytes.sum\", \"time.sum\"]\nrederive = { count = \"bytes.sum\", over = \"time.sum\", scale = 1e-9 }"};
  EXPECT_TRUE(check({ok}).empty());
  entry unread{.metrics = "[\"bytes.sum\"]\nrederive = { count = \"bytes.sum\", over = \"time.sum\" }"};
  expect_one(check({unread}), {"rederive uses time.sum, which validation_metrics does not list"});
  entry negative{.metrics = "[\"a.sum\", \"b.sum\"]\nrederive = { count = \"a.sum\", over = \"b.sum\", scale = -1.0 }"};
  expect_one(check({negative}), {"rederive's scale -1 is not positive"});
}

TEST(CalibrateSelfCheck, PriorityZeroAndPriorityAboveFourAreFlagged) {
  expect_one(check({entry{.priority = 0}}), {"priority 0 is outside 1..4"});
  expect_one(check({entry{.priority = 5}}), {"priority 5 is outside 1..4"});
}

TEST(CalibrateSelfCheck, TwoKnownValuesForOneArchAreFlagged) {
  entry bad{.known = "[ { arch = \"sm_90\", value = 4.0, source = \"[X]\" },"
                     " { arch = \"sm_90\", value = 5.0, source = \"[Y]\" } ]"};
  expect_one(check({bad}), {"two known values for sm_90"});
}

TEST(CalibrateSelfCheck, AKnownValueWithoutSourceOrArchIsFlagged) {
  expect_one(check({entry{.known = "[ { arch = \"sm_90\", value = 4.0, source = \"\" } ]"}}),
             {"the known value for sm_90 cites no source"});
  expect_one(check({entry{.known = "[ { arch = \"\", value = 4.0, source = \"[X]\" } ]"}}),
             {"a known value has no arch"});
}

TEST(CalibrateSelfCheck, EveryProblemOfACatalogIsReportedNotOnlyTheFirst) {
  entry a{.name = "a", .priority = 0, .unit = ""};
  entry b{.name = "b", .depends_on = "[\"zzz\"]", .range = "[5.0, 1.0]"};
  EXPECT_EQ(check({a, b}).size(), 4u);
}

TEST(CalibrateSelfCheck, ACatalogBuiltInCodeIsNamedByItsFile) {
  parameter p;
  p.name = "x";
  p.priority = 1;
  auto problems = self_check(catalog::from({p}, "<code>"));
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(std::all_of(problems.begin(), problems.end(),
                          [](const std::string& line) { return line.starts_with("<code>: x: "); }))
      << problems[0];
}

} // namespace
} // namespace warpforge::calibrate
