#pragma once
// annealing: simulated annealing over the grid, in batches of k, from the default point.
//
// State: a current point and its time (the energy), a temperature T (relative: 1.0 = 100%).
// Each propose(k):
//   1. Decide a move from the entries recorded since the previous call: the fastest measured one
//      is the candidate. It replaces the current point when faster, or when slower by the
//      relative difference d = (t_candidate - t_current) / t_current with probability exp(-d / T)
//      (Metropolis). With no measured current point (not yet measured, or it failed) the
//      candidate is taken. Failed points never become current.
//   2. Cool: T = max(min_temperature, T * cooling^n), n = the evaluations recorded since the
//      previous call. So T0 = 0.05 first accepts a point 5% slower with probability 1/e, and
//      after 20 evaluations (T = 0.006) practically never.
//   3. Restart when stuck: after `restart_after` evaluations without improving the best time of
//      the current walk, or when no new valid point lies within `radius` grid steps of the
//      current point, jump to a uniformly random new valid point and reset T to T0.
//   4. Propose: the current point itself while unmeasured, then the new valid points at 1 grid
//      step (one tunable moved to an adjacent value), then at 2, ... up to `radius`, each ring in
//      a random order; room left over is filled with uniformly random new valid points.
// Walks pass through invalid points (a constraint may cut a neighbourhood) but never propose one.
// Every draw comes from the seed (seeded_random), so runs repeat exactly.

#include "tuning/seeded_random.hpp"
#include "tuning/strategy.hpp"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace warpforge::tuning {

/// Parameters of the annealing strategy, with their defaults (docs/tuning.md).
struct annealing_options {
  double initial_temperature = 0.05; ///< relative, 1.0 = 100%; also T after each restart
  double cooling = 0.9;              ///< T is multiplied by this per evaluation, in (0, 1]
  double min_temperature = 1e-3;     ///< relative; the floor of the schedule
  std::uint32_t restart_after = 12;  ///< evaluations without a better time in the walk, >= 1
  std::uint32_t radius = 2;          ///< grid steps searched around the current point, >= 1
  double explore_share = 0.25;       ///< share of each batch drawn uniformly from the whole
                                     ///< space (global moves), in [0, 1)
};

class annealing_strategy final : public strategy {
public:
  /// Throws std::invalid_argument when an option is outside its range.
  annealing_strategy(std::shared_ptr<const search_space> space, std::uint64_t seed,
                     annealing_options options = {});
  config::search_strategy kind() const override { return config::search_strategy::annealing; }

  /// The current temperature (relative) and point, for logs and tests.
  double temperature() const { return temperature_; }
  std::optional<std::uint64_t> current() const { return current_; }
  /// Restarts so far.
  std::uint32_t restarts() const { return restarts_; }

private:
  void observe(std::uint64_t ordinal, const evaluation& entry) override;
  void fill() override;
  void decide();
  void restart();
  void offer_neighbourhood(std::size_t count); // up to count points near the current one
  void offer_random(std::size_t count);        // up to count uniformly random new points

  annealing_options options_;
  seeded_random rng_;
  lazy_permutation restart_order_;            // where restarts (and the last-resort fill) go
  std::optional<std::uint64_t> current_;      // none until a valid point is known
  std::optional<double> current_s_;           // the current point's time, seconds
  bool current_failed_ = false;               // the current point was evaluated and pruned
  double temperature_ = 0;
  std::optional<double> walk_best_s_;         // fastest time since the last restart, seconds
  std::uint32_t since_walk_best_ = 0;         // evaluations since walk_best_s_ improved
  std::uint32_t observed_ = 0;                // evaluations since the previous call
  std::vector<std::pair<std::uint64_t, double>> measured_; // (ordinal, s) since the previous call
  std::uint32_t restarts_ = 0;
};

} // namespace warpforge::tuning
