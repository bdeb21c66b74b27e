#include "llm/reply/parse.hpp"

#include <algorithm>

namespace warpforge::llm {

namespace {

// What to do instead, one line per fault.
std::string_view advice(reply_fault fault) {
  switch (fault) {
  case reply_fault::too_long:
    return "Answer with only the variants asked for, each kernel once, and no text outside the "
           "JSON object: the whole reply must stay under the size limit.";
  case reply_fault::no_json:
    return "Answer with one JSON object as the instructions describe, in a ```json fence.";
  case reply_fault::bad_json:
    return "Make the object valid JSON: each code is one string with \\n for line breaks and \\\" "
           "for quotes; no trailing commas, no comments.";
  case reply_fault::schema:
    return "Use exactly the envelope's keys: analysis, variants; per variant name, memo, methods, "
           "code, and optionally defines, launch, ablations (without, code, defines, launch).";
  case reply_fault::no_variants: return "Give at least one variant.";
  case reply_fault::too_many_variants: return "Give no more variants than asked for.";
  case reply_fault::duplicate_name: return "Give every variant its own name.";
  case reply_fault::no_code:
    return "Give every variant and ablation its complete kernel source in `code`.";
  case reply_fault::elided_code:
    return "Write every kernel in full: no '...', 'rest unchanged', TODO or empty function "
           "bodies; the code is compiled exactly as given.";
  case reply_fault::non_ascii:
    return "Use ASCII only in code, comments included (no typographic quotes, dashes, "
           "multiplication signs or ellipses).";
  case reply_fault::missing_entry:
    return "Define the entry as the problem's Entry point line declares it: a __global__ function of that name "
           "with the same linkage (extern \"C\" only if the problem's kernel is) and, for a template, the same "
           "template parameters.";
  case reply_fault::changed_signature:
    return "Keep the entry's parameter list exactly as in the problem: the same types in the "
           "same order (names may differ).";
  case reply_fault::host_code:
    return "Write device code only: no main, streams, events, timers, host API calls, <<< >>> "
           "launches or host headers; the runner allocates, launches and times the kernel.";
  case reply_fault::unknown_method: return "Claim only method ids from the catalog in the prompt.";
  case reply_fault::bad_define:
    return "Write defines as \"NAME\": integer, NAME a C identifier not named like a problem dim.";
  case reply_fault::bad_launch:
    return "Write launch.grid and launch.block as 1 to 3 integer expressions over the problem's "
           "dims and your defines (ceil_div, min, max, ...), within the device's limits; "
           "shared_bytes (dynamic shared memory) likewise.";
  }
  return {};
}

std::string shortened(std::string text, std::size_t limit) {
  if (text.size() > limit)
    text = text.substr(0, limit - 3) + "...";
  return text;
}

} // namespace

std::string reask_text(const std::vector<reply_problem>& problems) {
  constexpr std::size_t reason_limit = 400; // bytes of one problem's reason
  std::string head = "Your reply was not accepted: " + std::to_string(problems.size()) +
                     (problems.size() == 1 ? " problem" : " problems") +
                     ". Answer again with the complete JSON object (every variant, each with its "
                     "complete code), fixing all of them.\n\n";
  std::string advice_text = "\nWhat to do:\n";
  for (const auto fault : all_reply_faults)
    if (std::any_of(problems.begin(), problems.end(), [&](const auto& p) { return p.fault == fault; }))
      advice_text += "- " + std::string{to_string(fault)} + ": " + std::string{advice(fault)} + "\n";
  const std::size_t reserve = 80; // bytes kept for the "and N more" line
  const std::size_t budget = max_reask_bytes > head.size() + advice_text.size() + reserve
                               ? max_reask_bytes - head.size() - advice_text.size() - reserve
                               : 0;
  std::string listed;
  std::size_t count = 0;
  for (const auto& problem : problems) {
    std::string line = std::to_string(count + 1) + ". " + problem.where + " (" +
                       std::string{to_string(problem.fault)} + "): " +
                       shortened(problem.reason, reason_limit) + "\n";
    if (count == max_reask_problems || listed.size() + line.size() > budget)
      break;
    listed += line;
    ++count;
  }
  if (count < problems.size())
    listed.append("(").append(std::to_string(problems.size() - count)).append(" more problems not listed)\n");
  head.append(listed).append(advice_text);
  return shortened(std::move(head), max_reask_bytes);
}

} // namespace warpforge::llm
