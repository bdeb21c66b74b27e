#include "tuning/seeded_random.hpp"

#include <limits>
#include <utility>

namespace warpforge::tuning {

std::uint64_t seeded_random::below(std::uint64_t n) {
  if (n <= 1)
    return 0;
  // Draws in [0, limit) with limit a multiple of n are uniform modulo n.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % n;
  std::uint64_t draw = engine_();
  while (draw >= limit)
    draw = engine_();
  return draw % n;
}

double seeded_random::unit() {
  constexpr double two_to_minus_53 = 1.0 / static_cast<double>(std::uint64_t{1} << 53);
  return static_cast<double>(engine_() >> 11) * two_to_minus_53;
}

void seeded_random::shuffle(std::vector<std::uint64_t>& items) {
  for (std::size_t i = items.size(); i > 1; --i)
    std::swap(items[i - 1], items[below(i)]);
}

std::uint64_t lazy_permutation::at(std::uint64_t index) const {
  const auto found = moved_.find(index);
  return found == moved_.end() ? index : found->second;
}

std::optional<std::uint64_t> lazy_permutation::next(seeded_random& rng) {
  if (drawn_ >= n_)
    return std::nullopt;
  const std::uint64_t pick = drawn_ + rng.below(n_ - drawn_);
  const std::uint64_t element = at(pick);
  moved_[pick] = at(drawn_);
  moved_.erase(drawn_);
  ++drawn_;
  return element;
}

} // namespace warpforge::tuning
