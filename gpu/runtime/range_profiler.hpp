#pragma once
// profile_candidate inside warpforge-runner: Nsight metrics for one launch of a candidate. The
// counters come from CUPTI's Range Profiler (cupti_range_profiler.h) for collection and the
// Profiler Host API (cupti_profiler_host.h) for configuration and evaluation (CUDA 13 has no
// Event/Metric API); what the range profiler cannot give comes from the runner too: the
// launch__* attributes (launch_attributes.hpp) and the smsp__sass_* aggregates (CUPTI's SASS
// Metrics API, sass_metrics.hpp). docs/measurement.md, "Metrics". Runner-only
// (warpforge_gpu_runtime).
//
// The steps, each named in its failure:
//   1. counter access (counter_probe.hpp): restricted → counters_unavailable, unsupported device
//      → not_supported, before anything is launched;
//   2. run.kernels[0], prepared as run_race prepares it (single_launch.hpp): inputs generated on
//      the device from run.seeds.front() (cached in the runner), outputs poisoned;
//   3. chip name and counter availability image (before the range profiler is enabled: CUPTI
//      refuses that query while a session is active);
//   then each requested name goes to its part, one launch each, every launch after the first
//   from fresh inputs and poisoned outputs:
//   - launch__*: one launch with kernel activity records on (the driver's shared-memory
//     carveout), then the attributes and the occupancy arithmetic;
//   - the range profiler's names:
//     4. a host object for the chip; every metric name checked on its own (an unknown one goes
//        to `missing`, the others go on); the config image and its number of passes;
//     5. range profiler enabled on the primary context; a counter data image with a range per
//        launch of a pass; auto range (one range = one launch, exactly), kernel or user replay;
//     6. start → launch(es) → stop until CUPTI says every pass was submitted (kernel replay:
//        CUPTI replays the launch itself, saving and restoring device memory; user replay: the
//        runner copies the seed's pristine inputs and re-poisons the outputs before every pass,
//        and evicts the L2 right before the kernel: that read sweep is a range of the pass too);
//     7. decode, then evaluate the kernel's range for every configured metric;
//   - smsp__sass_*: one lazily patched launch, its per-instruction counts aggregated.
// A batch (profile_candidates) profiles several kernels, of one problem or of many, with one
// metric list: steps 1 and 3 once, the kernels ready at once on buffers of their own, each
// part per kernel except the range profiler's, which is one session whose every pass launches
// every kernel (each after its eviction), so that the passes' fixed cost (~28 ms each on an H100,
// taken in turn by the host's GPUs) is paid once for the batch: 24 kernels in 1.4 s instead of
// 9.8 s (docs/measurement.md, "What a profile costs"). Kernels whose buffers do not fit at once in
// 40% of the free memory are profiled in parts.
// Clocks are never locked: CUDA 13.0's range profiler has no clock control, and CUPTI 13.4's
// opt-in cuptiClockControlLock is never called. Caches: under user replay the runner evicts the L2
// before every pass (above); under kernel replay they are as CUPTI leaves them.

#include "foundation/expected/expected.hpp"
#include "gpu/runner/profile_request.hpp"

#include <string>
#include <vector>

namespace warpforge::gpu {

/// Profiles one launch of request.run.kernels[0] on device 0. Outcomes are profile_results (see
/// profile_status); the error is for "cannot execute here at all" (no driver, no device, missing
/// driver entry points, the check kernels would not build, a malformed request), answered with
/// reply status failed as for run_race. A result with runner_exits set means the CUDA context is
/// lost.
expected<profile_result, std::string> profile_candidate(const profile_request& request);

/// Profiles each request's kernel as profile_candidate does, all in one batch (above), and
/// answers in the requests' order. The requests share their metrics and replay mode (else the
/// error says so). A kernel that fails under the range profiler ends the session: the others'
/// counters are then missing with its reason (and runner_exits is set where the context is lost).
expected<std::vector<profile_result>, std::string> profile_candidates(const std::vector<profile_request>& requests);

/// What the first profile of the process would otherwise pay for, done ahead on the open device
/// (runner_warm_up.hpp): CUPTI's profiler and the chip's counter availability (kept for every
/// profile). How long it took; the error: why it could not be (the first profile then tries
/// again and answers with the reason).
expected<std::string, std::string> warm_up_profiler();

/// The profile status a failed CUPTI call stands for (a CUptiResult value): counters_unavailable
/// for the privilege errors, not_supported for devices and configurations CUPTI cannot profile
/// (vGPU, MIG, CMP, WSL, SLI, confidential computing, an unknown chip), failed for the rest.
profile_status classify_cupti_failure(long long cupti_result);

/// What to do when counters are restricted; appended to every counters_unavailable note.
inline constexpr const char* counter_permission_hint =
  "GPU performance counters are restricted to administrators (RmProfilingAdminOnly=1): run "
  "warpforge-runner as root, or load the NVIDIA driver with "
  "NVreg_RestrictProfilingToAdminUsers=0 (https://developer.nvidia.com/ERR_NVGPUCTRPERM)";

} // namespace warpforge::gpu
