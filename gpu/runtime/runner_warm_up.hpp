#pragma once
// The runner's warm-up (gpu/runner/warm_up_level.hpp says which parts and why): done once, right
// after the hello, while the coordinator's first request waits in the socket.
//
//   if (auto warm = warm_up_runner(level)) log->info("warm-up: {}", *warm);

#include "foundation/expected/expected.hpp"
#include "gpu/runner/warm_up_level.hpp"

#include <string>

namespace warpforge::gpu {

/// Opens what `level` names. What was opened and how long each part took ("device 1.170 s,
/// NVML 0.020 s, profiler and chip 1.800 s"); the error: the first part that failed and why (the
/// first race or profile then tries again and answers with the reason).
expected<std::string, std::string> warm_up_runner(warm_up_level level);

} // namespace warpforge::gpu
