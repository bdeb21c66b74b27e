#pragma once
// `warpforge-runner --execute <request.json>`: reads a run_race body and launches kernels[0]
// once on the first seed's inputs, made as run_race makes them (gpu/runtime/single_launch.hpp),
// then waits and exits. No reference, no check, no timing, no socket: the process ncu profiles
// (gpu/runner/ncu_profile.hpp). The race itself is gpu/runtime/race_runner.hpp.
// Runner-only (warpforge_gpu_runtime).

#include "foundation/expected/expected.hpp"
#include "gpu/runner/race_request.hpp"

#include <filesystem>
#include <string>

namespace warpforge::gpu {

/// One launch of request.kernels[0], waited for. The error names what failed (outcome text, then
/// detail).
expected<void, std::string> launch_first_kernel_once(const race_request& request);

/// Reads `request_file` (a run_race body) and launches its kernels[0] once. Returns the exit
/// code: runner_exit_ok, runner_exit_usage (unreadable or undecodable file) or
/// runner_exit_execute_failed; what went wrong is logged to stderr.
int execute_request_file(const std::filesystem::path& request_file);

} // namespace warpforge::gpu
