#include "tuning/annealing_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace warpforge::tuning {

annealing_strategy::annealing_strategy(std::shared_ptr<const search_space> space,
                                       std::uint64_t seed, annealing_options options)
    : strategy(std::move(space)), options_(options), rng_(seed),
      restart_order_(this->space().size()), temperature_(options.initial_temperature) {
  if (!(options_.initial_temperature > 0) || !(options_.cooling > 0 && options_.cooling <= 1) ||
      !(options_.min_temperature > 0) || options_.restart_after < 1 || options_.radius < 1 ||
      !(options_.explore_share >= 0 && options_.explore_share < 1))
    throw std::invalid_argument("annealing_options: temperatures must be > 0, cooling in (0, 1], "
                                "restart_after and radius >= 1, explore_share in [0, 1)");
  if (this->space().is_valid(this->space().default_ordinal()))
    current_ = this->space().default_ordinal();
}

void annealing_strategy::observe(std::uint64_t ordinal, const evaluation& entry) {
  if (!counts_as_evaluated(entry.outcome))
    return;
  ++observed_;
  const bool measured = entry.outcome == vocabulary::branch_outcome::passed && entry.median_s;
  if (!measured) {
    if (current_ == ordinal && !current_s_)
      current_failed_ = true;
    ++since_walk_best_;
    return;
  }
  const double time_s = *entry.median_s;
  if (current_ == ordinal && !current_s_)
    current_s_ = time_s; // the current point's own measurement: its energy, not a move
  else
    measured_.emplace_back(ordinal, time_s);
  if (!walk_best_s_ || time_s < *walk_best_s_) {
    walk_best_s_ = time_s;
    since_walk_best_ = 0;
  } else {
    ++since_walk_best_;
  }
}

void annealing_strategy::decide() {
  if (!measured_.empty()) {
    const auto candidate = *std::min_element(
        measured_.begin(), measured_.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    bool accept = !current_s_;
    if (!accept) {
      const double worse = (candidate.second - *current_s_) / *current_s_;
      accept = worse <= 0 || rng_.unit() < std::exp(-worse / temperature_);
    }
    if (accept) {
      current_ = candidate.first;
      current_s_ = candidate.second;
      current_failed_ = false;
    }
  }
  temperature_ = std::max(options_.min_temperature,
                          temperature_ * std::pow(options_.cooling, static_cast<double>(observed_)));
  measured_.clear();
  observed_ = 0;
}

void annealing_strategy::restart() {
  current_.reset();
  current_s_.reset();
  current_failed_ = false;
  walk_best_s_.reset();
  since_walk_best_ = 0;
  temperature_ = options_.initial_temperature;
  ++restarts_;
  while (auto next = restart_order_.next(rng_)) {
    if (available(*next)) {
      current_ = *next;
      return;
    }
  }
}

void annealing_strategy::offer_neighbourhood(std::size_t count) {
  if (!current_)
    return;
  const std::size_t stop_at = room() - std::min(count, room());
  if (!current_s_ && !current_failed_)
    offer(*current_);
  std::unordered_set<std::uint64_t> visited{*current_};
  std::vector<std::uint64_t> ring{*current_};
  for (std::uint32_t step = 0; step < options_.radius && room() > stop_at && !ring.empty();
       ++step) {
    std::vector<std::uint64_t> next_ring;
    for (auto ordinal : ring)
      for (auto neighbour : space().grid_neighbours(ordinal))
        if (visited.insert(neighbour).second)
          next_ring.push_back(neighbour);
    std::sort(next_ring.begin(), next_ring.end()); // a fixed order before the seeded shuffle
    rng_.shuffle(next_ring);
    for (auto ordinal : next_ring)
      if (room() > stop_at)
        offer(ordinal);
    ring = std::move(next_ring);
  }
}

void annealing_strategy::fill() {
  decide();
  if (!current_ || since_walk_best_ >= options_.restart_after)
    restart();
  // Global moves: a share of the batch (a Bernoulli draw for the fractional part), never the
  // whole of it while the neighbourhood has room.
  const double share = options_.explore_share * static_cast<double>(room());
  auto global = static_cast<std::size_t>(share);
  if (rng_.unit() < share - static_cast<double>(global))
    ++global;
  global = std::min(global, room() - 1);
  const std::size_t wanted = room() - global;
  const std::size_t before = room();
  offer_neighbourhood(wanted);
  if (room() == before) { // nothing new near the current point: stuck
    restart();
    offer_neighbourhood(wanted);
  }
  offer_random(room());
}

void annealing_strategy::offer_random(std::size_t count) {
  const std::size_t stop_at = room() - std::min(count, room());
  while (room() > stop_at) {
    const auto next = restart_order_.next(rng_);
    if (!next)
      return;
    offer(*next);
  }
}

} // namespace warpforge::tuning
