#pragma once
// The tuner's random numbers: reproducible from the campaign seed on every platform. The engine
// is std::mt19937_64 (its output sequence is fixed by the standard); the bounded and real draws
// below are written out here because the standard distributions are not the same across
// standard libraries.
//
//   seeded_random rng{seed};
//   rng.below(10);                 // uniform in [0, 10)
//   lazy_permutation order{n};     // a uniformly random order of 0..n-1, drawn one at a time
//   while (auto next = order.next(rng)) ...

#include <cstdint>
#include <optional>
#include <random>
#include <unordered_map>
#include <vector>

namespace warpforge::tuning {

class seeded_random {
public:
  explicit seeded_random(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, n); n >= 1 (unbiased: rejection of the top partial range).
  std::uint64_t below(std::uint64_t n);
  /// Uniform in [0, 1), 53 random bits.
  double unit();
  /// A uniformly random order of `items` (Fisher-Yates).
  void shuffle(std::vector<std::uint64_t>& items);

private:
  std::mt19937_64 engine_;
};

/// A uniformly random permutation of [0, n), produced one element at a time: Fisher-Yates with
/// the swaps kept in a sparse map, so memory grows with the draws, not with n.
class lazy_permutation {
public:
  explicit lazy_permutation(std::uint64_t n) : n_(n) {}

  /// The next element; nullopt once all n were drawn.
  std::optional<std::uint64_t> next(seeded_random& rng);
  std::uint64_t remaining() const { return n_ - drawn_; }

private:
  std::uint64_t at(std::uint64_t index) const;

  std::uint64_t n_ = 0;
  std::uint64_t drawn_ = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> moved_; // index -> element, where not identity
};

} // namespace warpforge::tuning
