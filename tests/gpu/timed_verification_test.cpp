// Timed work is checked work, on the CPU: which timed launch of a batch is verified, which seed a
// round runs on, where the sparse poison lies (gpu/runtime/timed_verification.hpp).
#include "gpu/runtime/timed_verification.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

using namespace warpforge::gpu;

namespace {

constexpr std::uint32_t draws = 4000; // random plans per case

} // namespace

TEST(timed_verification, a_batch_keeps_its_samples_and_verifies_exactly_one_of_them) {
  verification_random random{7};
  for (bool warm : {true, false})
    for (std::uint32_t samples : {1u, 2u, 3u, 8u, 100u})
      for (std::uint32_t i = 0; i < 50; ++i) {
        const auto plan = plan_batch(samples, warm, random.next());
        EXPECT_EQ(plan.samples(), samples);
        EXPECT_EQ(plan.launches(), plan.lead_in + samples + plan.settle);
        EXPECT_EQ(plan.first_part() + plan.second_part(), plan.launches());
        EXPECT_EQ(plan.verified_launch() + 1, plan.first_part()) << "part one ends with the verified launch";
        EXPECT_EQ(plan.lead_in, warm && samples >= 2 ? 1u : 0u) << "warm mode's lead-in, as before";
      }
}

TEST(timed_verification, the_verified_launch_is_never_the_lead_in_nor_the_first_on_new_inputs_when_another_exists) {
  verification_random random{11};
  for (bool warm : {true, false})
    for (std::uint32_t samples : {2u, 3u, 10u}) {
      std::set<std::uint32_t> verified;
      for (std::uint32_t i = 0; i < draws; ++i) {
        const auto plan = plan_batch(samples, warm, random.next());
        EXPECT_GE(plan.verified_launch(), 1u) << "launch 0 follows the inputs' refresh (or is the lead-in)";
        verified.insert(plan.verified_launch());
      }
      // Every other launch that is a sample can be the one: a kernel cannot tell which.
      const std::uint32_t candidates = warm ? samples : samples - 1;
      EXPECT_EQ(verified.size(), candidates) << "samples " << samples << (warm ? " warm" : " cold");
      EXPECT_EQ(*verified.rbegin(), warm ? samples : samples - 1);
    }
  EXPECT_EQ(plan_batch(1, false, 123).verified_launch(), 0u) << "a batch of one verifies its one launch";
  EXPECT_EQ(plan_batch(1, true, 123).verified_launch(), 0u);
}

TEST(timed_verification, warm_mode_settles_the_caches_after_the_check_before_the_next_sample) {
  verification_random random{13};
  for (std::uint32_t i = 0; i < draws; ++i) {
    const auto warm = plan_batch(6, true, random.next());
    EXPECT_EQ(warm.settle, warm.samples_after > 0 ? 1u : 0u);
    const auto cold = plan_batch(6, false, random.next());
    EXPECT_EQ(cold.settle, 0u) << "cold mode flushes the L2 before every launch anyway";
  }
}

TEST(timed_verification, the_verified_sample_is_spread_evenly_over_the_batch) {
  verification_random random{17};
  constexpr std::uint32_t samples = 5;
  std::uint32_t hits[samples + 1] = {};
  for (std::uint32_t i = 0; i < draws; ++i)
    ++hits[plan_batch(samples, true, random.next()).verified_launch()];
  EXPECT_EQ(hits[0], 0u) << "the lead-in";
  for (std::uint32_t v = 1; v <= samples; ++v)
    EXPECT_NEAR(hits[v], draws / samples, draws / samples / 5) << "launch " << v;
}

TEST(timed_verification, consecutive_rounds_run_on_different_seeds_starting_with_the_warm_ups) {
  EXPECT_EQ(round_seed_index(0, 2), 0u);
  for (std::size_t round = 0; round < 20; ++round) {
    EXPECT_NE(round_seed_index(round, 2), round_seed_index(round + 1, 2));
    EXPECT_NE(round_seed_index(round, 3), round_seed_index(round + 1, 3));
    EXPECT_LT(round_seed_index(round, 3), 3u);
    EXPECT_EQ(round_seed_index(round, 1), 0u);
  }
}

TEST(timed_verification, sparse_poison_hits_about_one_element_in_256_and_always_one) {
  verification_random random{19};
  constexpr std::uint64_t count = 1u << 20;
  const auto p = sparse_poison_for(random.next(), count);
  std::uint64_t poisoned = 0;
  for (std::uint64_t i = 0; i < count; ++i)
    poisoned += is_poisoned(p, i) ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(poisoned), static_cast<double>(count / sparse_poison_one_in),
              0.05 * static_cast<double>(count / sparse_poison_one_in));
  for (std::uint64_t tiny : {1u, 2u, 7u}) {
    const auto q = sparse_poison_for(random.next(), tiny);
    EXPECT_LT(q.always, tiny);
    EXPECT_TRUE(is_poisoned(q, q.always)) << "a buffer of " << tiny << " still has a poisoned element";
  }
}

TEST(timed_verification, a_kernel_sampling_a_few_fixed_outputs_rarely_sees_the_poison) {
  // The cheat: look at 8 fixed outputs; do the work only when one is poisoned. It escapes a
  // round only when it sees poison; it escapes the race only when it sees poison in every round.
  verification_random random{23};
  constexpr std::uint64_t count = 1u << 16;
  constexpr std::uint64_t sampled[] = {0, 1, 2, 3, count / 2, count / 3, count - 2, count - 1};
  std::uint32_t seen = 0;
  constexpr std::uint32_t rounds = 2000;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    const auto p = sparse_poison_for(random.next(), count);
    bool any = false;
    for (auto i : sampled)
      any = any || is_poisoned(p, i);
    seen += any ? 1 : 0;
  }
  EXPECT_LT(seen, rounds / 10) << "sampling 8 of 65536 outputs sees poison in about 3% of rounds";
  EXPECT_GT(seen, 0u) << "but the positions do move from round to round";
}

TEST(timed_verification, positions_change_from_round_to_round) {
  verification_random random{29};
  const auto a = sparse_poison_for(random.next(), 1u << 16);
  const auto b = sparse_poison_for(random.next(), 1u << 16);
  std::uint32_t both = 0;
  std::uint32_t in_a = 0;
  for (std::uint64_t i = 0; i < (1u << 16); ++i) {
    in_a += is_poisoned(a, i) ? 1 : 0;
    both += is_poisoned(a, i) && is_poisoned(b, i) ? 1 : 0;
  }
  EXPECT_LT(both, in_a / 10);
}

TEST(timed_verification, the_race_stream_is_reproducible_from_its_seed_and_differs_between_seeds) {
  verification_random a{42};
  verification_random b{42};
  verification_random c{43};
  EXPECT_EQ(a.seed(), 42u);
  const auto first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
  EXPECT_NE(first, a.next());
}
