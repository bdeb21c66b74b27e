#pragma once
// Finding the JSON object in a model's reply text, and saying where and why it does not parse.
// Models wrap the object in a ```json fence and prose; the first fenced block that starts with
// '{' is taken, else the text from its first '{' to its last '}'. Internal to llm/reply.

#include "foundation/expected/expected.hpp"
#include "llm/reply/reply_fault.hpp"

#include <cstddef>
#include <string_view>

namespace warpforge::llm::json_text {

struct located {
  std::string_view text; // from '{' to the matching-looking last '}'
  std::size_t offset = 0; // of text's first byte within the reply
};

/// The JSON object's text, or a no_json problem.
expected<located, reply_problem> locate(std::string_view reply);

/// The bad_json problem for `json`, which simdjson refused: its message, the place in the reply
/// (line and column, where simdjson can tell) and a hint for the usual causes.
reply_problem syntax_problem(std::string_view reply, const located& json);

} // namespace warpforge::llm::json_text
