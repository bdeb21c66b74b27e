#pragma once
// The pipeline's words (vocabulary/) as the messages use them.

#include "vocabulary/branch.hpp"
#include "vocabulary/timing_mode.hpp"

namespace warpforge::messages {

using vocabulary::branch_outcome;
using candidate_kind = vocabulary::branch_kind;
using timing_mode = vocabulary::timing_mode;

} // namespace warpforge::messages
