#pragma once
// Memory compaction (Kernelking's Haiku compaction, SEEDS-FACTS 3.1): once a job's rendered
// memory outgrows a threshold, a cheaper model rewrites it into three sections, Resolved /
// Pending / Avoid, which then stand for the earlier runs in the prompt's frozen part. The raw
// memory is kept by the caller; the summary only replaces it in prompts.
//
//   auto raw = render_attempts(earlier_runs);
//   if (needs_compaction(raw, threshold_chars)) {
//     auto reply = ask(cheap_model, build_compaction_prompt(raw));
//     if (auto c = parse_compaction(reply)) inputs.past_runs = render(*c);
//     else inputs.past_runs = render_recent_attempts(earlier_runs, threshold_chars);  // fallback
//   }

#include "foundation/expected/expected.hpp"
#include "llm/prompt/prompt.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace warpforge::llm {

/// True once `rendered_memory` is longer than `threshold_chars` (characters, i.e. bytes).
bool needs_compaction(const std::string& rendered_memory, std::size_t threshold_chars);

/// Stable: the instructions and the three sections wanted. Changing: the raw memory.
prompt build_compaction_prompt(const std::string& raw_memory);

struct compacted_memory {
  std::string resolved; // what worked and is in the best kernel (markdown lines, no heading)
  std::string pending;  // ideas not yet tried, or failed for a fixable reason
  std::string avoid;    // what did not pay or cannot work, and why
};

/// The three sections of the reply, each introduced by its "## Resolved" / "## Pending" /
/// "## Avoid" heading line (any order, text before the first heading ignored). An error names a
/// missing or repeated section, or another "## " heading.
expected<compacted_memory, std::string> parse_compaction(std::string_view reply);

/// "## Resolved\n...\n## Pending\n...\n## Avoid\n...": what parse_compaction reads back.
std::string render(const compacted_memory& memory);

} // namespace warpforge::llm
