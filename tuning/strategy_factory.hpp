#pragma once
// The strategy a campaign names ([proposer] strategy = "exhaustive" | "random" | "annealing"),
// built over a search space from the campaign's seed.
//
//   auto s = make_strategy(campaign.proposer.strategy, space, campaign.proposer.seed);

#include "config/campaign_spec.hpp"
#include "tuning/annealing_strategy.hpp"
#include "tuning/strategy.hpp"

#include <cstdint>
#include <memory>

namespace warpforge::tuning {

/// `options` applies to annealing only; exhaustive ignores the seed.
std::unique_ptr<strategy> make_strategy(config::search_strategy kind,
                                        std::shared_ptr<const search_space> space,
                                        std::uint64_t seed, const annealing_options& options = {});

} // namespace warpforge::tuning
