#pragma once
// What a runner opens right after its hello, before its first request (`--warm-up LEVEL`), while
// the coordinator compiles the campaign's first kernels. The coordinator picks it from what the
// campaign will ask of the runner (pipeline::runner_warm_up, pipeline/campaign.hpp):
//
//   none      nothing: the first request opens the device (bench, which never profiles, and the
//             calibrator's workers)
//   device    the device, its workspace and check kernels, and NVML (the SM clock every race reads)
//   profiler  the device as above, then CUPTI's profiler and the chip's counters (campaigns whose
//             profiles come early: every champion's diagnosis, diagnose, warpforge host)
//
// On four H100s opening at once the device took about 1.2 s and the profiler 1.8 s more (on four
// H200s 1.15 s and 1.4 s; alone 0.3 s each): the driver takes them in turn. A campaign whose
// first profile comes late ([profile] champions = "final" or "none") should not make its first
// race wait for the second: its first profile opens the profiler.

#include <optional>
#include <string_view>

namespace warpforge::gpu {

enum class warm_up_level { none, device, profiler };

inline constexpr warm_up_level all_warm_up_levels[] = {warm_up_level::none, warm_up_level::device,
                                                       warm_up_level::profiler};

/// "none", "device", "profiler": the runner's `--warm-up` words.
std::string_view to_string(warm_up_level level);
std::optional<warm_up_level> warm_up_level_from_string(std::string_view text);

} // namespace warpforge::gpu
