#pragma once
// Reading providers' JSON (stream events, error bodies) with simdjson's DOM API, field by JSON
// pointer ("/message/usage/input_tokens"). Every failure is a message naming the field and what
// it held instead; nothing throws. Internal to llm/chat: include it from .cpp files only.
// Strings returned as string_view live in the parser's buffer: copy them before the next parse.

#include "foundation/expected/expected.hpp"

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::llm::json_read {

/// The first `limit` characters of `text` on one line, control characters shown as '?', with "..."
/// when cut: how a bad payload is quoted in an error message.
std::string excerpt(std::string_view text, std::size_t limit = 120);

/// Parses `text` as one JSON object; the error says why, quoting the text.
expected<simdjson::dom::element, std::string> parse_object(simdjson::dom::parser& parser,
                                                           std::string_view text);

/// The value at `pointer`; absent or null is nullopt, another type is an error naming the field.
/// Integers are counts: a negative one is an error too.
expected<std::optional<std::string_view>, std::string> optional_string(simdjson::dom::element root,
                                                                       std::string_view pointer);
expected<std::optional<std::int64_t>, std::string> optional_integer(simdjson::dom::element root,
                                                                    std::string_view pointer);

/// As above, but absent or null is an error too ("missing /type").
expected<std::string_view, std::string> required_string(simdjson::dom::element root,
                                                        std::string_view pointer);
expected<std::int64_t, std::string> required_integer(simdjson::dom::element root,
                                                     std::string_view pointer);

/// The element at `pointer` when present and not null.
std::optional<simdjson::dom::element> find(simdjson::dom::element root, std::string_view pointer);

} // namespace warpforge::llm::json_read
