#pragma once
// The propose prompt and the fix re-ask, built from plain facts (facts.hpp). A prompt is a few
// stable system blocks and one changing user message. Provider caches match prefixes, so the
// stable blocks come first, most stable first, and hold nothing that changes within a job's run
// (no iteration number, time, attempt or best kernel): two rounds of one job send byte-identical
// stable blocks, and a fix re-ask shares them with the propose prompt.
//
//   stable[0]  role, rules, reply format                     (same for every job of a campaign)
//   stable[1]  GPU, problem, method catalog, skill catalogue  (same for every round of a job)
//   stable[2]  frozen past-run memory, pattern library        (when either is given)
//   changing   best kernel and times, diagnosis, judge, fired skills' full text, this run's
//              attempts, failures to learn from, leave-one-outs wanted, the task
//
// The lead marks the last stable block cacheable (Anthropic cache_control) and sends the
// changing part as the user message.

#include "llm/prompt/facts.hpp"
#include "llm/prompt/skills.hpp"

#include <string>
#include <vector>

namespace warpforge::llm {

struct prompt {
  std::vector<std::string> stable; // system blocks, most stable first
  std::string changing;            // the user message
};

/// The round's question: K new variants of the current best (and the leave-one-outs wanted).
prompt build_propose_prompt(const prompt_inputs& inputs, const skill_library& skills);
/// A re-ask for one variant that failed to compile or failed correctness: its code and the
/// compiler log or comparison report, what to do about it, and this run's earlier tries of that
/// variant (same name, and same iteration when the fix names one); the same stable blocks.
prompt build_fix_prompt(const prompt_inputs& inputs, const fix_request& fix, const skill_library& skills);

/// The stable blocks build_propose_prompt and build_fix_prompt share.
std::vector<std::string> stable_blocks(const prompt_inputs& inputs, const skill_library& skills);

} // namespace warpforge::llm
