#pragma once
// The verdict on a branch, and the other enums the pipeline shares with the store's columns.
// They are defined once, beside the columns that hold them (storage/column_enums.hpp, which
// documents each value and gives to_string / from_string / all_*); the pipeline speaks the same
// words:
//   passed, compile_error, sass_rejected, incorrect, runtime_error, timeout, not_run,
//   not_supported, interrupted.

#include "storage/column_enums.hpp"

namespace warpforge::messages {

using storage::branch_outcome;
using candidate_kind = storage::branch_kind;     // baseline, branch, ablation
using timing_mode = storage::measurement_mode;   // warm, cold (L2 flushed before each sample)

} // namespace warpforge::messages
