#include "llm/chat/spend_ledger.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace warpforge::llm {
namespace {

TEST(spend_ledger, keeps_totals_per_purpose_and_in_all) {
  spend_ledger ledger;
  ledger.charge("propose", {100, 50, 0, 0}, 0.25);
  ledger.charge("propose", {10, 5, 1000, 0}, 0.05);
  ledger.charge("judge", {1, 1, 0, 0}, 0.01);
  EXPECT_EQ(ledger.of("propose").usage, (token_usage{110, 55, 1000, 0}));
  EXPECT_NEAR(ledger.of("propose").usd, 0.30, 1e-12);
  EXPECT_EQ(ledger.of("propose").charges, 2u);
  EXPECT_EQ(ledger.of("fix").charges, 0u);
  EXPECT_NEAR(ledger.total().usd, 0.31, 1e-12);
  EXPECT_EQ(ledger.total().usage.total(), 110 + 55 + 1000 + 2);
  EXPECT_EQ(ledger.by_purpose().size(), 2u);
  EXPECT_FALSE(ledger.exhausted());
}

TEST(spend_ledger, is_exhausted_once_the_dollar_budget_is_spent) {
  spend_ledger ledger{{.max_usd = 1.0, .max_tokens = std::nullopt}};
  ledger.charge("propose", {}, 0.99);
  EXPECT_FALSE(ledger.exhausted());
  ledger.charge("fix", {}, 0.02);
  auto why = ledger.exhausted();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("$1.0100 of the $1.0000 budget"), std::string::npos) << *why;
}

TEST(spend_ledger, is_exhausted_once_the_token_budget_is_spent) {
  spend_ledger ledger{{.max_usd = std::nullopt, .max_tokens = 1000}};
  ledger.charge("propose", {400, 100, 0, 0}, 0);
  EXPECT_FALSE(ledger.exhausted());
  ledger.charge("propose", {0, 0, 300, 200}, 0);
  auto why = ledger.exhausted();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("1000 of the 1000-token budget"), std::string::npos) << *why;
}

TEST(spend_ledger, counts_every_charge_from_many_threads) {
  spend_ledger ledger;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&ledger] {
      for (int i = 0; i < 500; ++i)
        ledger.charge("propose", {1, 1, 0, 0}, 0.001);
    });
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(ledger.total().charges, 2000u);
  EXPECT_EQ(ledger.total().usage.total(), 4000);
  EXPECT_NEAR(ledger.total().usd, 2.0, 1e-9);
}

} // namespace
} // namespace warpforge::llm
