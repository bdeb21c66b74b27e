// plan(): the order (priority, dependencies first, catalog order), selection (--max-priority,
// --only, --reset), what is set aside and why, and progress.
#include "calibrate/schedule.hpp"

#include <gtest/gtest.h>

namespace warpforge::calibrate {
namespace {

parameter make(std::string name, std::uint32_t priority, std::vector<std::string> depends_on = {}) {
  parameter p;
  p.name = std::move(name);
  p.priority = priority;
  p.depends_on = std::move(depends_on);
  return p;
}

std::vector<std::string> names(const std::vector<scheduled>& entries, bool deferred) {
  std::vector<std::string> out;
  for (const auto& entry : entries)
    if (entry.deferred == deferred)
      out.push_back(entry.what->name);
  return out;
}

const scheduled& entry_of(const std::vector<scheduled>& entries, std::string_view name) {
  for (const auto& entry : entries)
    if (entry.what->name == name)
      return entry;
  throw std::runtime_error("not planned: " + std::string{name});
}

using list = std::vector<std::string>;

TEST(CalibrateSchedule, OrdersByPriorityThenCatalogOrder) {
  auto c = catalog::from({make("d", 3), make("a", 1), make("c", 2), make("b", 1)});
  auto out = plan(c, {}, notes{}, {}, {});
  EXPECT_EQ(names(out, false), (list{"a", "b", "c", "d"}));
  EXPECT_TRUE(names(out, true).empty());
}

TEST(CalibrateSchedule, MeasuresADependencyBeforeWhatNeedsItEvenWhenListedAfter) {
  auto c = catalog::from({make("throughput", 1, {"latency"}), make("other", 1), make("latency", 1)});
  auto out = plan(c, {}, notes{}, {}, {});
  EXPECT_EQ(names(out, false), (list{"other", "latency", "throughput"}));
}

TEST(CalibrateSchedule, ADependencyIsAsUrgentAsWhatNeedsIt) {
  // A user's catalog may let a priority 1 parameter depend on a priority 3 one: it comes just
  // before its dependent, not after the other priority 1 and 2 parameters.
  auto c = catalog::from({make("p2", 2), make("size", 3), make("p1", 1, {"size"}), make("q1", 1)});
  auto out = plan(c, {}, notes{}, {}, {});
  EXPECT_EQ(names(out, false), (list{"size", "p1", "q1", "p2"}));
}

TEST(CalibrateSchedule, MaxPriorityLeavesOutLaterPriorities) {
  auto c = catalog::from({make("a", 1), make("b", 2), make("c", 3), make("d", 4)});
  auto out = plan(c, {.max_priority = 2}, notes{}, {}, {});
  EXPECT_EQ(names(out, false), (list{"a", "b"}));
}

TEST(CalibrateSchedule, OnlyKeepsTheNamedParametersAndWhatTheyDependOn) {
  auto c = catalog::from({make("line", 3), make("l1_lat", 3, {"line"}), make("l1_size", 3, {"l1_lat"}),
                          make("fma", 1), make("clock", 4)});
  auto out = plan(c, {.max_priority = 1, .only = {"l1_size", "clock"}}, notes{}, {}, {});
  EXPECT_EQ(names(out, false), (list{"line", "l1_lat", "l1_size", "clock"}));
  EXPECT_EQ(entry_of(out, "line").reason, "needed by l1_lat");
  EXPECT_EQ(entry_of(out, "l1_lat").reason, "needed by l1_size");
  EXPECT_EQ(entry_of(out, "l1_size").reason, "");
}

TEST(CalibrateSchedule, LeavesOutWhatPassedAndCountsItAsASatisfiedDependency) {
  auto c = catalog::from({make("latency", 1), make("throughput", 1, {"latency"})});
  auto out = plan(c, {}, notes{}, {"latency"}, {});
  EXPECT_EQ(names(out, false), (list{"throughput"}));
  EXPECT_TRUE(names(out, true).empty());
}

TEST(CalibrateSchedule, SetsAsideWhatFailedAndEverythingThatDependsOnIt) {
  auto c = catalog::from({make("a", 1), make("b", 1, {"a"}), make("c", 2, {"b"}), make("d", 2)});
  auto out = plan(c, {}, notes{}, {}, {"a"});
  EXPECT_EQ(names(out, false), (list{"d"}));
  EXPECT_EQ(names(out, true), (list{"a", "b", "c"}));
  EXPECT_NE(entry_of(out, "a").reason.find("did not pass last time"), std::string::npos);
  EXPECT_EQ(entry_of(out, "b").reason, "depends on a, which is set aside");
  EXPECT_EQ(entry_of(out, "c").reason, "depends on b, which is set aside");
}

TEST(CalibrateSchedule, ARetryBringsBackAFailedParameterAndItsDependents) {
  auto c = catalog::from({make("a", 1), make("b", 1, {"a"})});
  notes book;
  book.mark_retry("a");
  auto out = plan(c, {}, book, {}, {"a"});
  EXPECT_EQ(names(out, false), (list{"a", "b"}));
  EXPECT_EQ(entry_of(out, "a").reason, "retry requested");
}

TEST(CalibrateSchedule, ADeferralInTheNotesSetsAsideWithItsReasonUntilRetry) {
  auto c = catalog::from({make("l2_size", 3), make("dram_latency", 3, {"l2_size"})});
  notes book;
  book.defer("l2_size", "knee blurred", "one SM per partition");
  auto out = plan(c, {}, book, {}, {});
  EXPECT_TRUE(names(out, false).empty());
  EXPECT_EQ(entry_of(out, "l2_size").reason,
            "deferred: knee blurred; next idea: one SM per partition");
  EXPECT_EQ(entry_of(out, "dram_latency").reason, "depends on l2_size, which is set aside");
  book.mark_retry("l2_size");
  EXPECT_EQ(names(plan(c, {}, book, {}, {}), false), (list{"l2_size", "dram_latency"}));
}

TEST(CalibrateSchedule, ResetForgetsAPassAFailureAndADeferral) {
  auto c = catalog::from({make("a", 1), make("b", 1), make("c", 1)});
  notes book;
  book.defer("c", "stubborn", "");
  auto out = plan(c, {.reset = {"a", "b", "c"}}, book, {"a"}, {"b"});
  EXPECT_EQ(names(out, false), (list{"a", "b", "c"}));
  EXPECT_EQ(entry_of(out, "a").reason, "reset");
  EXPECT_EQ(names(plan(c, {}, book, {"a"}, {"b"}), false), list{});
}

TEST(CalibrateSchedule, ACycleIsSetAsideWithItsDependentsAndTheRestStillRuns) {
  auto c = catalog::from({make("x", 1, {"y"}), make("y", 1, {"x"}), make("z", 1, {"x"}),
                          make("free", 2)});
  auto out = plan(c, {}, notes{}, {}, {});
  EXPECT_EQ(names(out, false), (list{"free"}));
  EXPECT_EQ(names(out, true), (list{"x", "y", "z"}));
  EXPECT_NE(entry_of(out, "x").reason.find("dependency cycle"), std::string::npos);
}

TEST(CalibrateSchedule, AnUnknownDependencySetsAParameterAside) {
  auto c = catalog::from({make("a", 1, {"ghost"})});
  auto out = plan(c, {}, notes{}, {}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].deferred);
  EXPECT_EQ(out[0].reason, "depends on unknown parameter 'ghost'");
}

TEST(CalibrateSchedule, ListsWhatToMeasureBeforeWhatIsSetAside) {
  auto c = catalog::from({make("a", 1), make("b", 2), make("c", 3)});
  auto out = plan(c, {}, notes{}, {}, {"a"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_FALSE(out[0].deferred);
  EXPECT_FALSE(out[1].deferred);
  EXPECT_TRUE(out[2].deferred);
  EXPECT_EQ(out[2].what->name, "a");
}

TEST(CalibrateSchedule, TheBuiltInCatalogUpToPriorityThreePlansEveryParameterDependenciesFirst) {
  auto c = catalog::built_in();
  ASSERT_TRUE(c.has_value()) << c.error();
  auto out = plan(*c, {.max_priority = 3}, notes{}, {}, {});
  std::size_t expected = 0;
  for (const auto& p : c->parameters())
    expected += p.priority <= 3 ? 1 : 0;
  ASSERT_EQ(out.size(), expected);
  std::set<std::string> done;
  std::uint32_t last_priority = 1;
  for (const auto& entry : out) {
    EXPECT_FALSE(entry.deferred) << entry.what->name << ": " << entry.reason;
    for (const auto& dependency : entry.what->depends_on)
      EXPECT_TRUE(done.contains(dependency)) << dependency << " after " << entry.what->name;
    EXPECT_GE(entry.what->priority, last_priority) << entry.what->name;
    last_priority = entry.what->priority;
    done.insert(entry.what->name);
  }
}

TEST(CalibrateSchedule, CheckOptionsNamesUnknownParametersWithASuggestion) {
  auto c = catalog::from({make("l2_size", 3), make("l1_size", 3)});
  auto problems = check_options(c, {.max_priority = 5, .only = {"l2_sise"}, .reset = {"nothing_like_it"}});
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0], "max_priority 5 is outside 1..4");
  EXPECT_NE(problems[1].find("only: unknown parameter 'l2_sise'"), std::string::npos);
  EXPECT_NE(problems[1].find("did you mean"), std::string::npos) << problems[1];
  EXPECT_EQ(problems[2], "reset: unknown parameter 'nothing_like_it'");
  EXPECT_TRUE(check_options(c, {.max_priority = 3, .only = {"l1_size"}}).empty());
}

TEST(CalibrateSchedule, ProgressCountsEachStateOverTheSelection) {
  auto c = catalog::from({make("a", 1), make("b", 1), make("c", 1, {"b"}), make("d", 2),
                          make("e", 2), make("f", 4)});
  notes book;
  book.defer("e", "why", "next");
  auto state = summarize(c, {.max_priority = 2}, book, {"a"}, {"b"});
  EXPECT_EQ(state, (progress{.selected = 5, .passed = 1, .failed = 1, .deferred = 2, .pending = 1}));
  EXPECT_EQ(to_string(state), "1/5 passed, 1 failed, 2 deferred, 1 pending");
}

} // namespace
} // namespace warpforge::calibrate
