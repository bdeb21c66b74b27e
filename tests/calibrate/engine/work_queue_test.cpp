#include "calibrate/engine/work_queue.hpp"

#include "fake_steps.hpp"

#include <gtest/gtest.h>


namespace warpforge::calibrate {
namespace {

using testing::test_parameter;

scheduled item(const parameter& p) {
  return scheduled{&p, false, ""};
}

// a <- b <- c (c depends on b, b on a), and d alone.
struct chain {
  parameter a = test_parameter("a");
  parameter b = test_parameter("b", {"a"});
  parameter c = test_parameter("c", {"b"});
  parameter d = test_parameter("d");
  std::vector<scheduled> plan() { return {item(a), item(b), item(c), item(d)}; }
};

TEST(work_queue, hands_out_in_plan_order_skipping_what_waits_for_a_running_dependency) {
  chain c;
  work_queue queue{c.plan(), {}, {}};
  auto first = queue.take();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->what->name, "a");
  auto second = queue.take();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->what->name, "d") << "b waits for a, which is still running";
  queue.finish("a", true);
  auto third = queue.take();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->what->name, "b");
  EXPECT_TRUE(third->deferred_reason.empty());
}

TEST(work_queue, a_failed_dependency_defers_its_dependents_in_a_cascade) {
  chain c;
  work_queue queue{c.plan(), {}, {}};
  ASSERT_EQ(queue.take()->what->name, "a");
  queue.finish("a", false);
  auto b = queue.take();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->what->name, "b");
  EXPECT_NE(b->deferred_reason.find("dependency a"), std::string::npos) << b->deferred_reason;
  auto c_item = queue.take();
  ASSERT_TRUE(c_item);
  EXPECT_EQ(c_item->what->name, "c");
  EXPECT_NE(c_item->deferred_reason.find("dependency b"), std::string::npos) << "a deferred one did not pass";
  EXPECT_EQ(queue.take()->what->name, "d");
  queue.finish("d", true);
  EXPECT_FALSE(queue.take()) << "nothing is left";
}

TEST(work_queue, dependencies_settled_by_an_earlier_run_count) {
  parameter b = test_parameter("b", {"a"});
  parameter c = test_parameter("c", {"x"});
  work_queue queue{{item(b), item(c)}, {"a"}, {"x"}};
  auto first = queue.take();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->what->name, "b");
  EXPECT_TRUE(first->deferred_reason.empty()) << "a passed before";
  auto second = queue.take();
  ASSERT_TRUE(second);
  EXPECT_NE(second->deferred_reason.find("earlier run"), std::string::npos) << second->deferred_reason;
}

TEST(work_queue, a_dependency_outside_the_run_does_not_hold_its_dependent) {
  parameter b = test_parameter("b", {"sm_clock_mhz"});
  work_queue queue{{item(b)}, {}, {}};
  auto item = queue.take();
  ASSERT_TRUE(item);
  EXPECT_TRUE(item->deferred_reason.empty());
}

TEST(work_queue, the_plans_own_deferral_is_handed_out_with_its_reason) {
  parameter a = test_parameter("a");
  work_queue queue{{{&a, true, "set aside: knee blurred"}}, {}, {}};
  auto item = queue.take();
  ASSERT_TRUE(item);
  EXPECT_EQ(item->deferred_reason, "set aside: knee blurred");
  EXPECT_FALSE(queue.take());
}

TEST(work_queue, a_dependency_cycle_is_deferred_rather_than_waited_for_forever) {
  parameter a = test_parameter("a", {"b"});
  parameter b = test_parameter("b", {"a"});
  work_queue queue{{item(a), item(b)}, {}, {}};
  auto item = queue.take();
  ASSERT_TRUE(item);
  EXPECT_NE(item->deferred_reason.find("cycle"), std::string::npos);
}

TEST(work_queue, a_parameter_waiting_for_a_running_dependency_is_handed_out_once_it_finishes) {
  chain c;
  std::vector<scheduled> plan{item(c.a), item(c.b)};
  work_queue queue{plan, {}, {}};
  ASSERT_EQ(queue.take()->what->name, "a");
  EXPECT_FALSE(queue.take()) << "b must wait for a";
  EXPECT_EQ(queue.waiting(), 1u);
  EXPECT_EQ(queue.running(), 1u);
  queue.finish("a", true);
  auto item = queue.take();
  ASSERT_TRUE(item);
  EXPECT_EQ(item->what->name, "b");
  EXPECT_TRUE(item->deferred_reason.empty());
}

TEST(work_queue, after_stop_nothing_more_is_handed_out_and_what_waited_stays_waiting) {
  chain c;
  std::vector<scheduled> plan{item(c.a), item(c.b), item(c.d)};
  work_queue queue{plan, {}, {}};
  ASSERT_EQ(queue.take()->what->name, "a");
  queue.stop();
  EXPECT_FALSE(queue.take()) << "d was ready, but the run was stopped";
  queue.finish("a", true);
  EXPECT_FALSE(queue.take());
  EXPECT_EQ(queue.waiting(), 2u) << "b and d were never handed out";
  EXPECT_EQ(queue.running(), 0u);
}

} // namespace
} // namespace warpforge::calibrate
