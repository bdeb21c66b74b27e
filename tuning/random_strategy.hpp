#pragma once
// random: valid points drawn uniformly without repetition, from the seed. The order is one
// uniformly random permutation of the grid (lazy_permutation), invalid and evaluated points
// skipped; so the valid points come in uniformly random order too. The baseline the annealing
// strategy must beat.

#include "tuning/seeded_random.hpp"
#include "tuning/strategy.hpp"

namespace warpforge::tuning {

class random_strategy final : public strategy {
public:
  random_strategy(std::shared_ptr<const search_space> space, std::uint64_t seed);
  config::search_strategy kind() const override { return config::search_strategy::random; }

private:
  void fill() override;

  seeded_random rng_;
  lazy_permutation order_;
};

} // namespace warpforge::tuning
