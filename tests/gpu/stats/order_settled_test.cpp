// The order rule of a race's rounds (gpu/stats/order_settled.hpp) on synthetic timing series: a
// drifting GPU whose intervals stop narrowing ends the race once no round the budget allows could
// change the order; independent noise, which keeps narrowing, does not; kernels apart are decided
// at once; the intervals reported stay honest (each holds its kernel's true time).

#include "gpu/stats/order_settled.hpp"
#include "gpu/stats/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace warpforge::gpu;

namespace {

// Uniform in [-1, 1] from mt19937_64's raw output (its sequence is fixed by the standard).
struct noise {
  std::mt19937_64 bits{20261127};
  double next() { return static_cast<double>(bits() >> 11) / static_cast<double>(1ULL << 53) * 2.0 - 1.0; }
};

// A synthetic race: every kernel's true time, the spread of the samples within a round, and a drift
// of the whole GPU from round to round (clocks, temperature) that hits every kernel alike.
struct synthetic_race {
  std::vector<double> true_s;  // seconds, per kernel
  double sample_noise = 0.0;   // ratio: each sample is true x (1 + this x u), u in [-1, 1]
  double drift = 0.0;          // ratio: round r is shifted by this x sin(r / 7) (slow, not averaging out)
  std::size_t per_round = 20;  // samples per kernel and round
  double round_wall_s = 0.025; // seconds of wall time per round

  // Rounds until the rule stops, or max_rounds; the last summaries in `last`.
  std::pair<stop_decision, std::size_t> run(const stopping_rule& rule, std::size_t max_rounds,
                                            std::vector<round_summary>& last) const {
    noise u;
    std::vector<std::vector<std::vector<double>>> samples(true_s.size());
    std::vector<std::vector<round_summary>> history(true_s.size());
    for (std::size_t rounds = 1; rounds <= max_rounds; ++rounds) {
      const double shift = drift * std::sin(static_cast<double>(rounds) / 7.0);
      std::vector<round_summary> now;
      std::vector<round_summary> at_half;
      for (std::size_t k = 0; k < true_s.size(); ++k) {
        std::vector<double> round;
        for (std::size_t i = 0; i < per_round; ++i)
          round.push_back(true_s[k] * (1.0 + shift + sample_noise * u.next()));
        samples[k].push_back(round);
        history[k].push_back(summarize_rounds(samples[k]));
        now.push_back(history[k].back());
        if (rounds >= 2)
          at_half.push_back(history[k][rounds / 2 - 1]);
      }
      const auto decision = rule.decide(now, rounds, static_cast<double>(rounds) * round_wall_s, at_half);
      last = now;
      if (is_final(decision))
        return {decision, rounds};
    }
    return {stop_decision::keep_going, max_rounds};
  }
};

// The sgemm race of issue 24: five kernels of 2.4-2.6 ms, two of them 0.2% apart, on a GPU whose
// clocks drift 1.5% over a few rounds (the round medians move together and do not average out).
synthetic_race sgemm_like() {
  synthetic_race race;
  race.true_s = {2.500e-3, 2.505e-3, 2.400e-3, 2.600e-3, 2.550e-3};
  race.sample_noise = 0.002;
  race.drift = 0.015;
  race.round_wall_s = 5 * 0.005 + 0.010; // five batches of 5 ms and the checks
  return race;
}

} // namespace

TEST(order_settled, the_narrowing_exponent_is_read_from_the_two_halves_and_clamped) {
  EXPECT_NEAR(narrowing_exponent(2.0, 1.0, 10, 40), 0.5, 1e-12); // halved over 4x the rounds
  EXPECT_NEAR(narrowing_exponent(2.0, std::sqrt(2.0), 10, 40), 0.25, 1e-12);
  EXPECT_EQ(narrowing_exponent(1.0, 1.0, 10, 20), 0.0);  // not narrowing at all
  EXPECT_EQ(narrowing_exponent(1.0, 2.0, 10, 20), 0.0);  // widening: no faster than not narrowing
  EXPECT_EQ(narrowing_exponent(8.0, 1.0, 10, 20), 0.5);  // faster than samples allow: clamped
  EXPECT_EQ(narrowing_exponent(0.0, 1.0, 10, 20), 0.5);  // nothing to read: the fastest pace
  EXPECT_EQ(narrowing_exponent(1.0, 1.0, 20, 20), 0.5);
}

TEST(order_settled, a_drifting_race_of_near_identical_kernels_stops_at_the_rule_not_the_budget) {
  const timing_policy policy; // 0.5% target, 3 s per kernel: 15 s for five kernels
  const stopping_rule rule{policy, 5};
  const auto race = sgemm_like();
  std::vector<round_summary> last;
  const auto [decision, rounds] = race.run(rule, 1000, last);
  EXPECT_EQ(decision, stop_decision::settled);
  EXPECT_GE(rounds, settle_min_rounds);
  EXPECT_LE(rounds, 40u) << "the old rule ran such a race for hundreds of rounds";
  // The intervals are not made narrower than the samples allow: each still holds its true time
  // within the drift's reach (the interval claims a re-measurement, which drifts alike).
  for (std::size_t k = 0; k < last.size(); ++k) {
    EXPECT_GT(last[k].half_width, policy.ci_target) << "kernel " << k << ": it would have converged";
    EXPECT_LE(last[k].stats.median_ci.low, race.true_s[k] * (1 + race.drift)) << k;
    EXPECT_GE(last[k].stats.median_ci.high, race.true_s[k] * (1 - race.drift)) << k;
  }
}

TEST(order_settled, a_race_that_reaches_its_budget_ran_out_it_did_not_settle) {
  // Two equal kernels, 25 rounds, asked exactly at the budget (2 kernels x 3 s): their intervals
  // overlap, and at the budget nothing is left to project, so the reason is the budget, not a
  // settled order (which would read "no round could change it" when none was left).
  const timing_policy policy;
  const stopping_rule rule{policy, 2};
  noise u;
  std::vector<std::vector<std::vector<double>>> samples(2);
  std::vector<round_summary> now, at_half;
  constexpr std::size_t rounds = 25;
  for (std::size_t r = 1; r <= rounds; ++r)
    for (auto& kernel : samples) {
      std::vector<double> round;
      for (int i = 0; i < 20; ++i)
        round.push_back(1e-3 * (1.0 + 0.05 * u.next()));
      kernel.push_back(round);
    }
  for (auto& kernel : samples) {
    now.push_back(summarize_rounds(kernel));
    at_half.push_back(summarize_rounds({kernel.begin(), kernel.begin() + rounds / 2}));
  }
  ASSERT_GE(rounds, settle_min_rounds);
  EXPECT_EQ(rule.decide(now, rounds, rule.budget_s(), at_half), stop_decision::budget_exhausted);
}

TEST(order_settled, without_the_pace_of_narrowing_the_same_race_runs_on) {
  const timing_policy policy;
  const stopping_rule rule{policy, 5};
  auto race = sgemm_like();
  std::vector<round_summary> last;
  // The same series with at_half withheld: the old rule, which only the budget or the target stops.
  noise u;
  std::vector<std::vector<std::vector<double>>> samples(race.true_s.size());
  stop_decision decision = stop_decision::keep_going;
  for (std::size_t rounds = 1; rounds <= 100 && !is_final(decision); ++rounds) {
    const double shift = race.drift * std::sin(static_cast<double>(rounds) / 7.0);
    std::vector<round_summary> now;
    for (std::size_t k = 0; k < race.true_s.size(); ++k) {
      std::vector<double> round;
      for (std::size_t i = 0; i < race.per_round; ++i)
        round.push_back(race.true_s[k] * (1.0 + shift + race.sample_noise * u.next()));
      samples[k].push_back(round);
      now.push_back(summarize_rounds(samples[k]));
    }
    decision = rule.decide(now, rounds, static_cast<double>(rounds) * race.round_wall_s);
  }
  EXPECT_EQ(decision, stop_decision::keep_going) << "100 rounds in, nothing but the budget ends it";
}

TEST(order_settled, independent_noise_keeps_narrowing_so_a_close_pair_is_not_given_up_on) {
  // Two kernels 1.5% apart, 6% noise per sample, no drift: at round 20 their intervals overlap,
  // but they narrow as 1/sqrt(rounds) and the budget's ~240 rounds would separate them.
  synthetic_race race;
  race.true_s = {1.000e-3, 1.015e-3};
  race.sample_noise = 0.06;
  race.per_round = 10;
  const timing_policy policy;
  const stopping_rule rule{policy, 2};
  std::vector<round_summary> last;
  const auto [decision, rounds] = race.run(rule, 25, last);
  EXPECT_EQ(decision, stop_decision::keep_going) << "stopped at round " << rounds;
}

TEST(order_settled, kernels_apart_are_decided_even_with_wide_intervals) {
  synthetic_race race;
  race.true_s = {2.4e-3, 2.6e-3};
  race.sample_noise = 0.002;
  race.drift = 0.006; // wider than the 0.5% target for ever, but 8% apart
  const timing_policy policy;
  const stopping_rule rule{policy, 2};
  std::vector<round_summary> last;
  const auto [decision, rounds] = race.run(rule, 1000, last);
  EXPECT_EQ(decision, stop_decision::settled);
  EXPECT_EQ(rounds, settle_min_rounds) << "apart from the first round the rule may act";
  EXPECT_LT(last[0].stats.median_ci.high, last[1].stats.median_ci.low);
  EXPECT_GT(last[0].half_width, policy.ci_target);
}

TEST(order_settled, a_quiet_race_still_converges_at_the_minimum_rounds) {
  synthetic_race race;
  race.true_s = {1.0e-3, 1.001e-3};
  race.sample_noise = 0.0005;
  const timing_policy policy;
  const stopping_rule rule{policy, 2};
  std::vector<round_summary> last;
  const auto [decision, rounds] = race.run(rule, 100, last);
  EXPECT_EQ(decision, stop_decision::converged);
  EXPECT_EQ(rounds, policy.min_rounds);
}

TEST(order_settled, one_kernel_or_mismatched_summaries_are_never_settled) {
  const auto one = summarize_rounds({{1e-3, 1.1e-3, 0.9e-3}, {1e-3, 1.2e-3, 0.8e-3}});
  const std::vector<round_summary> single{one};
  EXPECT_FALSE(order_settled(single, single, 40, 40));
  const std::vector<round_summary> two{one, one};
  EXPECT_FALSE(order_settled(two, single, 40, 40));
  EXPECT_TRUE(order_settled(two, two, 40, 40)) << "the same kernel twice: no round separates them";
}
