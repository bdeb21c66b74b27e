#include "gpu/runtime/runner_warm_up.hpp"

#include "gpu/runtime/device_workspace.hpp"
#include "gpu/runtime/phase_clock.hpp"
#include "gpu/runtime/range_profiler.hpp"
#include "gpu/runtime/sm_clock.hpp"

#include <vector>

namespace warpforge::gpu {

expected<std::string, std::string> warm_up_runner(warm_up_level level) {
  if (level == warm_up_level::none)
    return std::string{"nothing asked"};
  phase_clock clock;
  double setup_s = 0.0;
  if (auto workspace = device_workspace::get(setup_s); !workspace)
    return unexpected("the device did not open: " + workspace.error());
  clock.mark("device");
  // NVML's first call opens every GPU of the host; the first race would pay it between its
  // checks and its rounds.
  std::vector<std::string> notes;
  const double hz = sm_clock_hz(notes);
  clock.mark(hz > 0 ? "NVML" : "NVML (" + notes.front() + ")");
  std::string done = clock.text();
  if (level == warm_up_level::profiler) {
    auto profiler = warm_up_profiler();
    if (!profiler)
      return unexpected(done + "; " + profiler.error());
    done += ", " + *profiler;
  }
  return done;
}

} // namespace warpforge::gpu
