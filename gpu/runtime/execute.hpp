#pragma once
// Executing a run_candidate request inside warpforge-runner (docs/measurement.md): load the
// candidate and reference CUBINs, check the candidate against the reference on every seed
// (poisoned outputs, input mutation, tolerance comparison), then time it with CUDA events under
// the stopping rule. Also the one-shot `warpforge-runner --execute <request.json>` (one launch, no
// check, no timing: the process ncu profiles, gpu/runner/ncu_profile.hpp). The shared steps are
// in candidate_launch.hpp. Runner-only (warpforge_gpu_runtime).
//
//   auto result = execute_candidate(request, reply_and_exit); // error: cannot execute at all
//   if (result && result->runner_exits) ...    // sticky CUDA error: reply, then exit

#include "expected/expected.hpp"
#include "gpu/runner/candidate_request.hpp"

#include <filesystem>
#include <functional>
#include <string>

namespace warpforge::gpu {

/// warpforge-runner's exit code after a sticky CUDA error (illegal address, trap, ...): the
/// context is lost, so the runner replies and exits; the client starts a new one.
inline constexpr int runner_exit_context_lost = 5;

/// warpforge-runner --execute's exit code when the candidate could not be loaded or launched.
inline constexpr int runner_exit_execute_failed = 6;

/// warpforge-runner's exit code after a candidate launch outran the kernel watchdog: the kernel
/// still runs, and only the process's end takes it off the GPU.
inline constexpr int runner_exit_kernel_hung = 7;

/// Called with the timeout result when a launch outruns the kernel watchdog. It must send the
/// reply and end the process (std::_Exit): returning into CUDA would wait on the hung kernel
/// (every free, unload and synchronize does). If it returns anyway, the process ends with
/// runner_exit_kernel_hung.
using hung_kernel_exit = std::function<void(const candidate_result&)>;

/// Dynamic shared memory a kernel may use without opting in (bytes per block).
inline constexpr std::uint32_t default_dynamic_smem_limit_bytes = 48 * 1024;

/// The L2 flush of cold mode writes this many times the L2 size.
inline constexpr std::uint64_t l2_flush_size_factor = 2;

/// Runs `request` on the first visible device. Outcomes (passed, incorrect, runtime_error,
/// not_supported; timeout through on_hung) are results; the error is for "cannot execute here at all" (no device, no
/// driver, missing driver entry points), answered with status failed.
/// A launch that outruns request.watchdog goes to `on_hung` and never returns here.
expected<candidate_result, std::string> execute_candidate(const candidate_request& request,
                                                          const hung_kernel_exit& on_hung);

/// One launch of the candidate with the first seed's inputs (poisoned outputs), waited for: no
/// reference, no comparison, no timing. The error names what failed (outcome text, then detail).
expected<void, std::string> launch_candidate_once(const candidate_request& request);

/// `warpforge-runner --execute <file>`: reads a run_candidate body (the candidate_request JSON)
/// and launches it once. Returns the exit code: 0, runner_exit_usage (unreadable or undecodable
/// file) or runner_exit_execute_failed; what went wrong is logged to stderr.
int execute_request_file(const std::filesystem::path& request_file);

} // namespace warpforge::gpu
