#include "gpu/runtime/runner_warm_up.hpp"

#include "gpu/runtime/device_workspace.hpp"
#include "gpu/runtime/range_profiler.hpp"
#include "gpu/runtime/sm_clock.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

namespace warpforge::gpu {

namespace {

std::string seconds_since(std::chrono::steady_clock::time_point start) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return text;
}

} // namespace

expected<std::string, std::string> warm_up(warm_up_level level) {
  if (level == warm_up_level::none)
    return std::string{"nothing asked"};
  auto start = std::chrono::steady_clock::now();
  double setup_s = 0.0;
  if (auto workspace = device_workspace::get(setup_s); !workspace)
    return unexpected("the device did not open: " + workspace.error());
  std::string done = "device " + seconds_since(start);
  // NVML's first call opens every GPU of the host (up to half a second on an 8-GPU node); the
  // first race would pay it between its checks and its rounds.
  start = std::chrono::steady_clock::now();
  std::vector<std::string> notes;
  const double hz = sm_clock_hz(notes);
  done += ", NVML " + seconds_since(start) + (hz > 0 ? "" : " (" + notes.front() + ")");
  if (level == warm_up_level::profiler) {
    auto profiler = warm_up_profiler();
    if (!profiler)
      return unexpected(done + "; " + profiler.error());
    done += ", " + *profiler;
  }
  return done;
}

} // namespace warpforge::gpu
