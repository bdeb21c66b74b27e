#pragma once
// Timing the real program: the target's time command, `repeats` runs one after another, each
// read the way the target says (a RESULT value, or the observed kernel's launch durations). The
// same function times the original and the champion, in the same session, so the two compare.
// Observed timing keeps every kernel's launches too (the launch log has them all): the deploy
// compares them kernel by kernel (kernel_times.hpp).

#include "deploy/deploy_steps.hpp"
#include "deploy/kernel_times.hpp"
#include "config/deploy_target.hpp"
#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace warpforge::deploy {

/// Median and spread (max - min) of `samples`, in `unit`.
timing_summary summarize_timing(std::span<const double> samples, std::string unit);

/// The value of `key` on the last RESULT line of `output` that has it; an error quotes why.
expected<double, std::string> result_value(std::string_view output, std::string_view key);

/// One timing of the program: the deploy's value, and (observed timing) every kernel.
struct timed_program {
  timing_summary named;                  // RESULT: the program's value; observed: the named kernel's
                                         // launches summed per run, seconds
  std::optional<program_kernels> kernels; // observed: every kernel and their total; none for RESULT
};

/// Runs the time command target.repeats times; run n logs to `<log_dir>/<label>-<n>.log`
/// (observed timing: a folder of that name). An error names the run and quotes its output's
/// tail: a run that exits non-zero, times out, or prints no value.
expected<timed_program, std::string> time_program(const deploy_target& target,
                                                   const std::filesystem::path& log_dir,
                                                   std::string_view label);

/// Whether this build can time by observation (deploy/observe/ linked).
bool observed_timing_available();

} // namespace warpforge::deploy
