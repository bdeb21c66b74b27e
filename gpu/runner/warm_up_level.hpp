#pragma once
// What a runner opens right after its hello, before its first request (`--warm-up LEVEL`), while
// the coordinator compiles the campaign's first kernels. The coordinator picks it from what the
// campaign will ask of the runner (apps/warpforge/cli/pipeline_session.cpp):
//
//   none      nothing: the first race opens the device (bench, which neither profiles nor waits)
//   device    the device, its workspace and check kernels, and NVML (the SM clock every race reads)
//   profiler  the device as above, then CUPTI's profiler and the chip's counters (campaigns that
//             profile)
//
// On four H100s opening at once the device took about 1.2 s and the profiler 1.8 s more; a
// campaign that never profiles ([profile] champions = "none") should not make its first race
// wait for the second.

#include <optional>
#include <string_view>

namespace warpforge::gpu {

enum class warm_up_level { none, device, profiler };

constexpr std::string_view to_string(warm_up_level level) {
  switch (level) {
  case warm_up_level::none: return "none";
  case warm_up_level::device: return "device";
  case warm_up_level::profiler: return "profiler";
  }
  return "none";
}

constexpr std::optional<warm_up_level> parse_warm_up_level(std::string_view text) {
  for (auto level : {warm_up_level::none, warm_up_level::device, warm_up_level::profiler})
    if (text == to_string(level))
      return level;
  return std::nullopt;
}

} // namespace warpforge::gpu
