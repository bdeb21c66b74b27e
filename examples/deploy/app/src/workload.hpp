#pragma once
// The sizes the application transposes and how often, like a real program with a few shapes of
// very different cost: the large shapes dominate the time, the many small launches still matter.
// One shape (1000 x 1000) is not a multiple of any tile on purpose: a kernel that forgets its
// bounds checks fails the application's own --check.

#include <array>
#include <cstdint>

struct workload_size {
  int rows = 0;                // rows of the input
  int cols = 0;                // columns of the input
  int launches = 0;            // how many times --bench transposes this size
  std::uint32_t seed = 0;      // of this size's input values
};

inline constexpr std::array<workload_size, 4> workload_sizes{{
    {8192, 8192, 6, 11},
    {4096, 2048, 24, 12},
    {1000, 1000, 200, 13},
    {512, 8192, 40, 14},
}};
