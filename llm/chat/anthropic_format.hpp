#pragma once
// The Anthropic Messages API (POST {base}/v1/messages, anthropic-version 2023-06-01), streamed.
//   request: system as an array of text blocks, cache_control {"type":"ephemeral"} on blocks
//            marked cache (at most 4 breakpoints); user/assistant messages; "stream": true.
//   stream:  message_start (id, model, usage with cache_creation/cache_read_input_tokens),
//            content_block_start / content_block_delta (text_delta) / content_block_stop,
//            message_delta (stop_reason, cumulative usage.output_tokens), message_stop; ping is
//            ignored, as are unknown events; an error event (overloaded_error, ...) is a problem.
//   continuation: the partial reply as a trailing assistant message, which the model continues
//            (trailing whitespace removed: the API rejects a final assistant turn ending in it).

#include "llm/chat/wire_format.hpp"

namespace warpforge::llm {

inline constexpr std::string_view anthropic_version = "2023-06-01";
inline constexpr std::size_t anthropic_max_cache_breakpoints = 4;

class anthropic_format final : public wire_format {
public:
  std::string_view name() const override { return "anthropic"; }
  expected<wire_request, std::string> encode(const chat_request& request,
                                             std::string_view key) const override;
  std::unique_ptr<stream_decoder> decoder() const override;
  continuation_request continuation(const chat_request& original,
                                    std::string_view partial) const override;
};

/// anthropic's stop_reason ("end_turn", "max_tokens", "stop_sequence", "refusal", ...).
stop_reason anthropic_stop_reason(std::string_view text);

} // namespace warpforge::llm
