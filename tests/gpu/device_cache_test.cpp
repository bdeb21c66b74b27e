// The runner's device buffer cache without a GPU: its bookkeeping (least recently used eviction
// under a byte budget) on entries that hold no device memory; the byte counts are what put() is told.
#include "gpu/runtime/device_cache.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

namespace {

std::shared_ptr<cached_buffers> entry(double reference_s = 0.0) {
  auto e = std::make_shared<cached_buffers>();
  e->reference_s = reference_s;
  return e;
}

} // namespace

TEST(device_cache, finds_what_it_keeps_and_counts_hits_and_misses) {
  device_cache cache{1000};
  EXPECT_FALSE(cache.find("a"));
  cache.put("a", entry(1.5), 400);
  auto hit = cache.find("a");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->reference_s, 1.5);
  EXPECT_EQ(cache.bytes(), 400u);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
}

TEST(device_cache, evicts_the_least_recently_used_beyond_the_budget) {
  device_cache cache{1000};
  cache.put("a", entry(), 400);
  cache.put("b", entry(), 400);
  ASSERT_TRUE(cache.find("a")); // b is now the least recently used
  cache.put("c", entry(), 400);
  EXPECT_TRUE(cache.find("a"));
  EXPECT_FALSE(cache.find("b"));
  EXPECT_TRUE(cache.find("c"));
  EXPECT_EQ(cache.bytes(), 800u);
  EXPECT_EQ(cache.evictions(), 1u);
}

TEST(device_cache, an_entry_larger_than_the_budget_is_not_kept_but_stays_with_its_user) {
  device_cache cache{1000};
  auto big = entry(2.0);
  cache.put("big", big, 1001);
  EXPECT_FALSE(cache.find("big"));
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(big->reference_s, 2.0); // the request that made it still holds it
}

TEST(device_cache, an_evicted_entry_lives_while_a_request_holds_it) {
  device_cache cache{500};
  cache.put("a", entry(3.0), 400);
  auto held = cache.find("a");
  cache.put("b", entry(), 400); // evicts a
  EXPECT_FALSE(cache.find("a"));
  ASSERT_TRUE(held);
  EXPECT_EQ(held->reference_s, 3.0);
}

TEST(device_cache, putting_a_key_again_replaces_its_entry_and_clear_drops_everything) {
  device_cache cache{1000};
  cache.put("a", entry(1.0), 300);
  cache.put("a", entry(2.0), 500);
  EXPECT_EQ(cache.bytes(), 500u);
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.find("a")->reference_s, 2.0);
  cache.clear();
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_FALSE(cache.find("a"));
}
