#include "config/supervision_policy.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace warpforge::config {
namespace {

using std::chrono::milliseconds;

TEST(ConfigSupervisionPolicy, DefaultsAreTheDocumentedValues) {
  const supervision_policy policy;
  EXPECT_EQ(policy.max_restarts, 5u);
  EXPECT_EQ(policy.window_s, 60u);
  EXPECT_EQ(policy.backoff_initial_ms, 100u);
  EXPECT_EQ(policy.backoff_factor, 2.0);
  EXPECT_EQ(policy.backoff_max_ms, 10000u);
}

TEST(ConfigSupervisionPolicy, BackoffGrowsByTheFactorUpToTheCap) {
  const supervision_policy policy;
  EXPECT_EQ(backoff_delay(policy, 0), milliseconds{100});
  EXPECT_EQ(backoff_delay(policy, 1), milliseconds{200});
  EXPECT_EQ(backoff_delay(policy, 2), milliseconds{400});
  EXPECT_EQ(backoff_delay(policy, 6), milliseconds{6400});
  EXPECT_EQ(backoff_delay(policy, 7), milliseconds{10000});
  EXPECT_EQ(backoff_delay(policy, 4000000000u), milliseconds{10000});
}

TEST(ConfigSupervisionPolicy, FactorOneKeepsTheInitialDelay) {
  supervision_policy policy;
  policy.backoff_factor = 1.0;
  EXPECT_EQ(backoff_delay(policy, 50), milliseconds{100});
}

} // namespace
} // namespace warpforge::config
