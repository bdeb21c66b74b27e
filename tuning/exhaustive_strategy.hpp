#pragma once
// exhaustive: every valid point, in ordinal order (the spec's nested loops, the last tunable
// fastest), skipping those already evaluated. For small spaces, and the reference the other
// strategies are measured against (tests/bench/tuning_bench.cpp). No parameters; the seed is unused.

#include "tuning/strategy.hpp"

namespace warpforge::tuning {

class exhaustive_strategy final : public strategy {
public:
  explicit exhaustive_strategy(std::shared_ptr<const search_space> space);
  config::search_strategy kind() const override { return config::search_strategy::exhaustive; }

private:
  void fill() override;

  std::uint64_t cursor_ = 0; // the next ordinal to look at
};

} // namespace warpforge::tuning
