#pragma once
// Executing a run_candidate request inside warpforge-runner (docs/measurement.md): load the
// candidate and reference CUBINs, check the candidate against the reference on every seed
// (poisoned outputs, input mutation, tolerance comparison), then time it with CUDA events under
// the stopping rule. Runner-only (warpforge_gpu_runtime).
//
//   auto result = execute_candidate(request);  // error: could not execute at all (no device)
//   if (result && result->runner_exits) ...    // sticky CUDA error: reply, then exit

#include "expected/expected.hpp"
#include "gpu/runner/candidate_request.hpp"

#include <string>

namespace warpforge::gpu {

/// warpforge-runner's exit code after a sticky CUDA error (illegal address, trap, ...): the
/// context is lost, so the runner replies and exits; the client starts a new one.
inline constexpr int runner_exit_context_lost = 5;

/// Dynamic shared memory a kernel may use without opting in (bytes per block).
inline constexpr std::uint32_t default_dynamic_smem_limit_bytes = 48 * 1024;

/// The L2 flush of cold mode writes this many times the L2 size.
inline constexpr std::uint64_t l2_flush_size_factor = 2;

/// Runs `request` on the first visible device. Outcomes (passed, incorrect, runtime_error,
/// not_supported) are results; the error is for "cannot execute here at all" (no device, no
/// driver, missing driver entry points), answered with status failed.
expected<candidate_result, std::string> execute_candidate(const candidate_request& request);

} // namespace warpforge::gpu
