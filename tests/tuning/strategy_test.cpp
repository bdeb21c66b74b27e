#include "tuning/strategy.hpp"

#include "tuning/annealing_strategy.hpp"
#include "tuning/exhaustive_strategy.hpp"
#include "tuning/point_text.hpp"
#include "tuning/random_strategy.hpp"
#include "tuning/seeded_random.hpp"
#include "tuning/strategy_factory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

namespace warpforge::tuning {
namespace {

using config::search_strategy;
using config::tunable_point;
using vocabulary::branch_outcome;

std::shared_ptr<const search_space> transpose_space() {
  auto spec = config::load_problem(std::string(WARPFORGE_SOURCE_DIR) +
                                   "/examples/transpose/problem.toml");
  if (!spec)
    throw std::runtime_error(toml_reader::to_string(spec.error()));
  auto space = search_space::from_problem(*spec);
  if (!space)
    throw std::runtime_error(to_string(space.error()));
  return std::make_shared<const search_space>(std::move(*space));
}

config::tunable_spec tunable(std::string name, std::vector<std::int64_t> values,
                             std::int64_t default_value) {
  config::tunable_spec t;
  t.name = std::move(name);
  t.values = std::move(values);
  t.default_value = default_value;
  return t;
}

/// A synthetic objective: 3 tunables of 8 values (512 points); a bowl around (6, 1, 5) with
/// +-10% deterministic ruggedness per point. The default (3, 3, 3) sits on the slope.
struct bowl {
  std::shared_ptr<const search_space> space;

  bowl() {
    std::vector<config::tunable_spec> tunables;
    for (const char* name : {"X", "Y", "Z"})
      tunables.push_back(tunable(name, {0, 1, 2, 3, 4, 5, 6, 7}, 3));
    space = std::make_shared<const search_space>(*search_space::from_tunables(tunables));
  }

  static double time_s(const tunable_point& p) {
    const double dx = static_cast<double>(p.at("X") - 6), dy = static_cast<double>(p.at("Y") - 1),
                 dz = static_cast<double>(p.at("Z") - 5);
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : canonical_text(p))
      h = (h ^ c) * 1099511628211ULL;
    const double rugged = static_cast<double>(h % 1000) / 1000.0; // [0, 1)
    return 1e-3 * (1.0 + 0.1 * (dx * dx + dy * dy + dz * dz)) * (0.9 + 0.2 * rugged);
  }
};

/// Runs `s` until it proposes nothing or `limit` evaluations, recording `objective`'s verdicts.
/// Returns every proposed point in order.
std::vector<tunable_point> drive(strategy& s, tuning_history& history, std::size_t k,
                                 std::size_t limit,
                                 const std::function<evaluation(const tunable_point&)>& objective) {
  std::vector<tunable_point> proposed;
  while (proposed.size() < limit) {
    const auto batch = s.propose(k, history);
    if (batch.empty())
      break;
    EXPECT_LE(batch.size(), k);
    for (const auto& p : batch) {
      proposed.push_back(p);
      history.record(objective(p));
    }
  }
  return proposed;
}

evaluation passes_in(const tunable_point& p, double t) {
  return {p, branch_outcome::passed, t};
}

std::vector<std::unique_ptr<strategy>> every_strategy(std::shared_ptr<const search_space> space,
                                                      std::uint64_t seed) {
  std::vector<std::unique_ptr<strategy>> all;
  for (auto kind : config::all_search_strategies)
    all.push_back(make_strategy(kind, space, seed));
  return all;
}

TEST(Strategies, ProposeEveryValidPointOnceAndNeverAnInvalidOne) {
  const auto space = transpose_space();
  const auto valid = space->valid_points();
  for (auto& s : every_strategy(space, 7)) {
    tuning_history history;
    const auto proposed = drive(*s, history, 4, 1000, [](const tunable_point& p) {
      return passes_in(p, 1e-3 + 1e-5 * static_cast<double>(p.at("TILE") + p.at("BLOCK_ROWS")));
    });
    std::set<tunable_point> distinct(proposed.begin(), proposed.end());
    EXPECT_EQ(distinct.size(), proposed.size()) << to_string(s->kind()) << " repeated a point";
    EXPECT_EQ(distinct, std::set<tunable_point>(valid.begin(), valid.end()))
        << to_string(s->kind());
    EXPECT_TRUE(s->propose(4, history).empty()) << "the space is exhausted";
  }
}

TEST(Strategies, NeverProposeAPointThatWasPruned) {
  const auto space = transpose_space();
  for (auto& s : every_strategy(space, 11)) {
    tuning_history history;
    // Known before the first call (from the cache, say): every TILE = 16 point fails to compile.
    for (const auto& p : space->valid_points())
      if (p.at("TILE") == 16)
        history.record({p, branch_outcome::compile_error, std::nullopt});
    const auto proposed = drive(*s, history, 3, 1000, [](const tunable_point& p) {
      // Learnt on the way: BLOCK_ROWS = 32 fails to launch.
      if (p.at("BLOCK_ROWS") == 32)
        return evaluation{p, branch_outcome::runtime_error, std::nullopt};
      return passes_in(p, 1e-3);
    });
    for (const auto& p : proposed)
      EXPECT_NE(p.at("TILE"), 16) << to_string(s->kind()) << " proposed " << canonical_text(p);
    EXPECT_EQ(proposed.size(), 9u) << to_string(s->kind()) << ": 15 valid, 6 of them TILE = 16";
    for (const auto& p : space->valid_points()) {
      if (p.at("BLOCK_ROWS") == 32) {
        EXPECT_TRUE(history.is_pruned(p));
      }
    }
  }
}

TEST(Strategies, PendingPointsAreNotProposedTwice) {
  const auto space = transpose_space();
  for (auto& s : every_strategy(space, 3)) {
    tuning_history history;
    const auto first = s->propose(4, history);
    const auto second = s->propose(4, history); // nothing recorded in between
    std::set<tunable_point> all(first.begin(), first.end());
    all.insert(second.begin(), second.end());
    EXPECT_EQ(all.size(), first.size() + second.size()) << to_string(s->kind());
  }
}

TEST(Strategies, AnInterruptedPointComesBackFirst) {
  const auto space = transpose_space();
  for (auto& s : every_strategy(space, 5)) {
    tuning_history history;
    const auto first = s->propose(2, history);
    ASSERT_EQ(first.size(), 2u);
    history.record({first[0], branch_outcome::passed, 1e-3});
    history.record({first[1], branch_outcome::interrupted, std::nullopt});
    const auto second = s->propose(2, history);
    ASSERT_FALSE(second.empty());
    EXPECT_EQ(second[0], first[1]) << to_string(s->kind());
  }
}

TEST(Strategies, TheSameSeedGivesTheSamePoints) {
  const bowl b;
  for (auto kind : config::all_search_strategies) {
    auto run = [&](std::uint64_t seed) {
      auto s = make_strategy(kind, b.space, seed);
      tuning_history history;
      return drive(*s, history, 4, 40, [](const tunable_point& p) {
        return passes_in(p, bowl::time_s(p));
      });
    };
    EXPECT_EQ(run(42), run(42)) << to_string(kind);
    if (kind != search_strategy::exhaustive) {
      EXPECT_NE(run(42), run(43)) << to_string(kind);
    }
  }
}

TEST(Strategies, ExhaustiveGoesInOrdinalOrder) {
  const auto space = transpose_space();
  exhaustive_strategy s(space);
  tuning_history history;
  const auto proposed = drive(s, history, 4, 1000, [](const tunable_point& p) {
    return passes_in(p, 1e-3);
  });
  EXPECT_EQ(proposed, space->valid_points());
}

TEST(Strategies, AnnealingStartsAtTheDefaultPoint) {
  const bowl b;
  annealing_strategy s(b.space, 1);
  tuning_history history;
  const auto first = s.propose(4, history);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0], b.space->default_point());
  // Three neighbours of the default and one global move (explore_share 0.25 of 4).
  const auto neighbours = b.space->neighbours(b.space->default_point());
  for (std::size_t i = 1; i < 3; ++i)
    EXPECT_NE(std::find(neighbours.begin(), neighbours.end(), first[i]), neighbours.end());
}

TEST(Strategies, AnnealingMovesToAFasterNeighbourAndCools) {
  const bowl b;
  annealing_options options;
  options.explore_share = 0; // only local moves, to follow the walk
  annealing_strategy s(b.space, 9, options);
  tuning_history history;
  // The default (time 30) and its six neighbours; Z + 1 is the steepest step down (21).
  auto smooth = [](const tunable_point& p) {
    const auto x = p.at("X") - 6, y = p.at("Y") - 1, z = p.at("Z") - 5;
    return passes_in(p, 1e-3 * static_cast<double>(1 + x * x + 2 * y * y + 3 * z * z));
  };
  EXPECT_EQ(drive(s, history, 7, 7, smooth).size(), 7u);
  s.propose(4, history); // decides the move
  ASSERT_TRUE(s.current());
  EXPECT_EQ(b.space->point_at(*s.current()), (tunable_point{{"X", 3}, {"Y", 3}, {"Z", 4}}));
  EXPECT_LT(s.temperature(), options.initial_temperature);
}

TEST(Strategies, AnnealingBeatsRandomOnAverage) {
  // Mean best time after 24 evaluations (6 proposals of 4), over 60 seeds.
  const bowl b;
  constexpr std::size_t evaluations = 24;
  constexpr std::uint64_t seeds = 60;
  auto mean_best = [&](search_strategy kind) {
    double sum = 0;
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      auto s = make_strategy(kind, b.space, seed);
      tuning_history history;
      drive(*s, history, 4, evaluations, [](const tunable_point& p) {
        return passes_in(p, bowl::time_s(p));
      });
      sum += *history.best()->median_s;
    }
    return sum / static_cast<double>(seeds);
  };
  const double annealing = mean_best(search_strategy::annealing);
  const double random = mean_best(search_strategy::random);
  EXPECT_LT(annealing, random) << "annealing " << annealing << " s, random " << random << " s";
}

TEST(Strategies, TheFactoryBuildsTheNamedStrategy) {
  const bowl b;
  for (auto kind : config::all_search_strategies)
    EXPECT_EQ(make_strategy(kind, b.space, 1)->kind(), kind);
}

TEST(Strategies, AnnealingRefusesOptionsOutsideTheirRange) {
  const bowl b;
  annealing_options bad;
  bad.cooling = 1.5;
  EXPECT_THROW(annealing_strategy(b.space, 1, bad), std::invalid_argument);
  bad = {};
  bad.explore_share = 1.0;
  EXPECT_THROW(annealing_strategy(b.space, 1, bad), std::invalid_argument);
}

TEST(Strategies, AShorterHistoryIsABrokenInvariant) {
  const bowl b;
  random_strategy s(b.space, 1);
  tuning_history history;
  history.record(passes_in(b.space->default_point(), 1e-3));
  s.propose(1, history);
  tuning_history other;
  EXPECT_THROW(s.propose(1, other), std::logic_error);
}

TEST(TuningHistory, NotRunAndInterruptedDoNotUseUpAPoint) {
  EXPECT_FALSE(counts_as_evaluated(branch_outcome::not_run));
  EXPECT_FALSE(counts_as_evaluated(branch_outcome::interrupted));
  for (auto outcome : vocabulary::all_branch_outcomes) {
    const bool evaluated = outcome != branch_outcome::not_run && outcome != branch_outcome::interrupted;
    EXPECT_EQ(counts_as_evaluated(outcome), evaluated) << vocabulary::to_string(outcome);
    EXPECT_EQ(prunes_point(outcome), evaluated && outcome != branch_outcome::passed)
        << vocabulary::to_string(outcome);
  }
}

TEST(TuningHistory, KnowsEachPointsStatusAndTheBest) {
  tuning_history history;
  const tunable_point a{{"X", 1}}, b{{"X", 2}}, c{{"X", 3}};
  history.record({a, branch_outcome::passed, 2e-3});
  history.record({b, branch_outcome::passed, 1e-3});
  history.record({c, branch_outcome::interrupted, std::nullopt});
  EXPECT_TRUE(history.is_evaluated(a));
  EXPECT_FALSE(history.is_evaluated(c));
  EXPECT_EQ(history.time_of(b), 1e-3);
  ASSERT_NE(history.best(), nullptr);
  EXPECT_EQ(history.best()->point, b);
  history.record({c, branch_outcome::incorrect, std::nullopt});
  EXPECT_TRUE(history.is_pruned(c));
  EXPECT_FALSE(history.time_of(c));
  EXPECT_EQ(history.evaluated_count(), 3u);
  EXPECT_EQ(history.size(), 4u);
}

TEST(SeededRandom, ALazyPermutationDrawsEveryElementOnce) {
  seeded_random rng{3};
  lazy_permutation order{100};
  std::set<std::uint64_t> seen;
  while (auto next = order.next(rng))
    EXPECT_TRUE(seen.insert(*next).second);
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(*seen.rbegin(), 99u);
  EXPECT_EQ(order.remaining(), 0u);
}

TEST(SeededRandom, BoundedDrawsStayInRangeAndCoverIt) {
  seeded_random rng{8};
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 6000; ++i) {
    const auto v = rng.below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  for (int c : counts)
    EXPECT_GT(c, 800);
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

} // namespace
} // namespace warpforge::tuning
