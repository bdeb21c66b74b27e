#pragma once
// The SM clock of device 0 now, through NVML (dlopen'ed: optional on the node). Clocks are never
// changed; the runner reads them before and after the timing rounds so a throttled measurement
// shows. Runner-only (warpforge_gpu_runtime).

#include <string>
#include <vector>

namespace warpforge::gpu {

/// Hz, or 0 with a note in `notes` (once) when NVML is missing or cannot tell.
double sm_clock_hz(std::vector<std::string>& notes);

} // namespace warpforge::gpu
