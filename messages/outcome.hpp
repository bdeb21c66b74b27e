#pragma once
// The verdict on a branch: every stage that can end a branch says why with one of these.

#include <cstdint>
#include <optional>
#include <string_view>

namespace warpforge::messages {

enum class branch_outcome : std::uint8_t {
  passed,        // compiled, SASS-checked, correct and timed
  compile_error, // NVRTC/nvcc rejected the source; the log is kept
  sass_rejected, // a claimed method is absent from the machine code
  incorrect,     // output differs from the reference beyond rtol/atol, stays poisoned, or inputs changed
  runtime_error, // the kernel faulted (illegal address, trap, launch failure, OOM, sticky error)
  timeout,       // still running past the watchdog; the runner was killed
  not_run,       // never reached a GPU (budget, earlier failure, no GPU on this host)
  not_supported, // the device cannot run it (arch, shared memory, registers)
  interrupted,   // the campaign stopped (Ctrl-C, crash) while it was in flight; resumable
};

std::string_view to_string(branch_outcome outcome);
std::optional<branch_outcome> branch_outcome_from_string(std::string_view text);

/// Every value, for exhaustive tests and documentation tables.
inline constexpr branch_outcome all_branch_outcomes[] = {
  branch_outcome::passed,        branch_outcome::compile_error, branch_outcome::sass_rejected,
  branch_outcome::incorrect,     branch_outcome::runtime_error, branch_outcome::timeout,
  branch_outcome::not_run,       branch_outcome::not_supported, branch_outcome::interrupted,
};

} // namespace warpforge::messages
