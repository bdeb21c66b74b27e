#include "tuning/strategy_factory.hpp"

#include "tuning/exhaustive_strategy.hpp"
#include "tuning/random_strategy.hpp"

#include <stdexcept>
#include <utility>

namespace warpforge::tuning {

std::unique_ptr<strategy> make_strategy(config::search_strategy kind,
                                        std::shared_ptr<const search_space> space,
                                        std::uint64_t seed, const annealing_options& options) {
  switch (kind) {
  case config::search_strategy::exhaustive:
    return std::make_unique<exhaustive_strategy>(std::move(space));
  case config::search_strategy::random:
    return std::make_unique<random_strategy>(std::move(space), seed);
  case config::search_strategy::annealing:
    return std::make_unique<annealing_strategy>(std::move(space), seed, options);
  }
  throw std::invalid_argument("make_strategy: unknown search strategy");
}

} // namespace warpforge::tuning
