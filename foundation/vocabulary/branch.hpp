#pragma once
// What a branch is and what became of it: the words every stage uses for a kernel variant, from
// the proposer to the runner's reply and the store's columns.

#include "foundation/vocabulary/enum_text.hpp"

#include <array>

namespace warpforge::vocabulary {

enum class branch_kind {
  branch,   ///< a proposed variant
  ablation, ///< the champion with one claimed method left out
  baseline, ///< the starting kernel, measured for reference
};
inline constexpr std::array all_branch_kinds{branch_kind::branch, branch_kind::ablation,
                                             branch_kind::baseline};

/// The verdict on a branch. The runner answers the five it can see (passed, incorrect,
/// runtime_error, not_supported, timeout); the coordinator adds the rest.
enum class branch_outcome {
  passed,        ///< compiled, correct, measured
  compile_error, ///< NVRTC/nvcc rejected the source
  sass_rejected, ///< the SASS failed a signature check
  incorrect,     ///< ran, but an output differs from the reference, stayed poisoned, or an
                 ///< input changed
  runtime_error, ///< a CUDA error (launch failure, illegal address, trap, unloadable module),
                 ///< or the runner crashed
  timeout,       ///< a launch outran the kernel watchdog, or the runner its reply deadline
  not_run,       ///< skipped, with the reason (no GPU here, the GPU is out of service...)
  not_supported, ///< needs what this GPU or toolkit lacks (shared memory, registers, arch)
  interrupted,   ///< the campaign stopped while this branch was in flight
  inconsistent,  ///< passed its checked launches, but a timed launch wrote wrong or stale output
                 ///< (it skipped work when it was being timed: memoization, a recognised seed)
  suspicious,    ///< faster than the least time physics allows, also when re-verified cold:
                 ///< recorded with both numbers, never a champion
};
inline constexpr std::array all_branch_outcomes{
    branch_outcome::passed,        branch_outcome::compile_error, branch_outcome::sass_rejected,
    branch_outcome::incorrect,     branch_outcome::runtime_error, branch_outcome::timeout,
    branch_outcome::not_run,       branch_outcome::not_supported, branch_outcome::interrupted,
    branch_outcome::inconsistent,  branch_outcome::suspicious};

std::string_view to_string(branch_kind value);
std::string_view to_string(branch_outcome value);

template <>
std::optional<branch_kind> from_string<branch_kind>(std::string_view text);
template <>
std::optional<branch_outcome> from_string<branch_outcome>(std::string_view text);

} // namespace warpforge::vocabulary
