#pragma once
// Strict parsing of a model's reply into the envelope (envelope.hpp, documented in envelope.md):
// the JSON object is found in the reply text (a ```json fence or the outermost braces), parsed
// with simdjson, checked against the schema, and every code checked (code_check.hpp). Any problem
// refuses the whole reply; the problems, all of them, make the re-ask.
//
//   auto contract = contract_from_source(kernel_source, "sgemm", catalog_ids, 4);
//   auto reply = parse_reply(model_text, *contract);
//   if (!reply) send(reask_text(reply.error()));      // bounded by the caller's retry budget

#include "foundation/expected/expected.hpp"
#include "llm/reply/contract.hpp"
#include "llm/reply/envelope.hpp"
#include "llm/reply/reply_fault.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

/// The longest reply that is parsed (bytes): a longer one is refused whole (reply_fault::too_long)
/// before any of it is read, so no check's cost grows past what this allows. Four variants of a
/// large kernel with their ablations stay far below it.
inline constexpr std::size_t max_reply_bytes = 1024 * 1024;

/// The envelope in `reply_text`, or every problem found (never empty).
expected<envelope, std::vector<reply_problem>> parse_reply(std::string_view reply_text,
                                                           const kernel_contract& contract);

/// reask_text lists at most this many problems, then says how many more there are.
inline constexpr std::size_t max_reask_problems = 20;
/// reask_text's length is at most this (bytes); a longer reason is shortened.
inline constexpr std::size_t max_reask_bytes = 6000;

/// The message sent back to the model: every problem with its place and reason, and what to do
/// instead (one advice line per fault that occurred); at most max_reask_bytes.
std::string reask_text(const std::vector<reply_problem>& problems);

/// The exact text the prompt gives the model about the envelope (envelope_instructions.md,
/// compiled in).
std::string_view envelope_instructions();

} // namespace warpforge::llm
