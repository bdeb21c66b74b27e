#include "tuning/random_strategy.hpp"

#include <utility>

namespace warpforge::tuning {

random_strategy::random_strategy(std::shared_ptr<const search_space> space, std::uint64_t seed)
    : strategy(std::move(space)), rng_(seed), order_(this->space().size()) {}

void random_strategy::fill() {
  while (room() > 0) {
    const auto next = order_.next(rng_);
    if (!next)
      return;
    offer(*next);
  }
}

} // namespace warpforge::tuning
