#pragma once
// The application's two modes. Both walk workload_sizes in order.

/// Transposes every size once and compares the whole output with a CPU transpose. Returns true
/// and prints `check: ok` when all match; otherwise prints the size and the first wrong element
/// to stderr and returns false.
bool run_check();

/// The workload: every size its number of launches, each launch timed with CUDA events. Prints a
/// line per size and `RESULT: kernel_ms=<sum of the launches' GPU times> wall_ms=<whole workload>`.
void run_bench();
