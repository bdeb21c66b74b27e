#pragma once
// The job's attempt memory as the model reads it (Kernelking's per-kernel memory, SEEDS-FACTS
// 3.1): one line per attempt with its methods, verdict, why and attribution, then one line per
// method set tried, so the model sees at a glance what worked and what to avoid.
//
//   iter 2 b3 [memory.tiling_smem + memory.bank_conflict]: ACCEPTED, 3.10x the baseline. 0.812 ms, ...
//     attribution: memory.bank_conflict 12% of the gain
//   ...
//   By method set:
//   - memory.tiling_smem + memory.bank_conflict: 1 accepted (best 3.10x), 1 rejected
//
// This run's attempts go to the prompt's changing part; earlier runs' are frozen in its stable
// part, whole (render_attempts), as their newest tail (render_recent_attempts) or compacted
// (compaction.hpp) once they outgrow the threshold.

#include "llm/prompt/facts.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace warpforge::llm {

/// One line (two with an attribution) for an attempt, ending in a newline.
std::string render_attempt(const attempt_fact& attempt);
/// Every attempt in order, then the per-method-set tally; "none yet\n" when there are none.
std::string render_attempts(const std::vector<attempt_fact>& attempts);
/// The newest attempts whose lines fit in `max_chars` (at least the newest one), oldest first,
/// after a line saying how many older ones were left out, then the tally of all of them.
std::string render_recent_attempts(const std::vector<attempt_fact>& attempts, std::size_t max_chars);

} // namespace warpforge::llm
