#pragma once
// The buffers of one kernel's launches, for `warpforge init` (WARPFORGE_OBSERVE_BUFFERS names the
// kernel, matches_kernel's rule): which allocation each pointer parameter points into, from the
// driver's own allocation table (cuMemGetAddressRange: cudaMalloc, cuMemAlloc*, managed and pool
// memory alike, with no second copy to keep in step), and whether the launch changed its bytes (a
// hash of each allocation before the launch and after it completed).
//
// The one place the library synchronises and copies device memory, so it is bounded: only that
// kernel, only the first $WARPFORGE_OBSERVE_HASH_LAUNCHES launches (2), only when their
// allocations hold at most $WARPFORGE_OBSERVE_HASH_BYTES bytes (1 GiB); each other launch of the
// kernel gets its allocations without hashes, and a note says why. A failed synchronise or copy
// (a stream being captured into a graph, say) is a note, and the launch goes unhashed.

#include "deploy/observe/launches/launch_record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::observe::inject {

/// A watched launch between its call's entry and exit.
struct watched_launch {
  std::uint32_t correlation_id = 0;        // the launch call that began the watch
  std::vector<buffer_observation> buffers; // `before` filled when hashed
  bool hashed = false;                     // the before hashes were taken
};

/// At a launch call's entry: the watch, when `symbol` is the watched kernel (else nullopt).
/// Hashes the allocations as they are before the launch (after a synchronise), within budget.
std::optional<watched_launch> begin_watch(std::uint32_t correlation_id, const std::string& symbol,
                                          const std::vector<param_bytes>& params);

/// At the same call's exit, the launch queued: the after hashes (after a synchronise), then the
/// buffers go to the launch's entry in the launch table.
void end_watch(watched_launch& watch);

} // namespace warpforge::observe::inject
