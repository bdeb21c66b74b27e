#pragma once
// warpforge-runner's exit codes, in one place: the runner ends with them (gpu/runtime/), the
// coordinator reads them (runner_client, runner_keeper, the ncu fallback). docs/runner-protocol.md
// lists them with what happened before each.

namespace warpforge::gpu {

inline constexpr int runner_exit_ok = 0;              // shutdown requested, --query or --execute done
inline constexpr int runner_exit_usage = 2;           // bad command line, or an unreadable --execute file
inline constexpr int runner_exit_endpoint_failed = 3; // could not connect / socket error
inline constexpr int runner_exit_parent_gone = 4;     // the parent process disappeared
inline constexpr int runner_exit_context_lost = 5;    // a sticky CUDA error (illegal address, trap):
                                                      // replied first, the context is lost
inline constexpr int runner_exit_execute_failed = 6;  // --execute: the kernel could not be loaded or launched
inline constexpr int runner_exit_kernel_hung = 7;     // a launch outran the kernel watchdog: replied
                                                      // first; only the process's end stops the kernel

} // namespace warpforge::gpu
