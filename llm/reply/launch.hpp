#pragma once
// A variant's own launch geometry, evaluated: its expressions over the problem's dims and the
// variant's defines become a config::launch_geometry, checked against the device's limits. The
// reference keeps the problem's launch; only the kernel under test uses this.

#include "config/resolved_problem.hpp"
#include "foundation/expected/expected.hpp"
#include "config/expression/expression.hpp"
#include "llm/reply/envelope.hpp"
#include "llm/reply/reply_fault.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::llm {

/// What one block and one grid may be on the device. Defaults: an H100 (sm_90).
struct device_limits {
  std::uint32_t max_threads_per_block = 1024;                  // threads, x * y * z
  std::array<std::uint32_t, 3> max_block{1024, 1024, 64};      // threads per axis
  std::array<std::uint32_t, 3> max_grid{2147483647u, 65535, 65535}; // blocks per axis
  std::uint32_t max_shared_per_block = 232448; // bytes of dynamic shared memory, opt-in (H100)
};

/// The geometry `launch` gives with `dims_and_defines` as its names' values: every grid and block
/// value >= 1 and within `limits`, threads per block within the limit, shared bytes in
/// [0, max_shared_per_block]; a missing y or z is 1. The error names each expression that fails
/// ("launch.grid[1] \"ceil_div(M, BM)\": ...") and, for an unknown name, the names there are.
expected<config::launch_geometry, std::string>
evaluate_launch(const variant_launch& launch, const expression::integer_values& dims_and_defines,
                const device_limits& limits);

/// evaluate_launch for every variant and ablation of `reply` that brings a launch, each with the
/// problem's `dims` and its own defines: a bad_define where a define is named like a dim (it
/// would shadow it), a bad_launch naming the variant where the launch fails. Empty when all fit.
std::vector<reply_problem> launch_problems(const envelope& reply,
                                           const expression::integer_values& dims,
                                           const device_limits& limits);

} // namespace warpforge::llm
