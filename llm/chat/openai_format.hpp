#pragma once
// OpenAI-compatible chat completions (POST {base}/chat/completions), streamed: OpenAI itself and
// local servers that speak it (vLLM, llama.cpp's server, Ollama at http://127.0.0.1:PORT/v1).
//   request: the system blocks joined (blank line between) as one system message, then the
//            user/assistant messages; "stream": true with stream_options.include_usage; the
//            token limit as max_tokens (what every compatible server reads) or, for OpenAI's own
//            API, max_completion_tokens (its o-series reject max_tokens); Authorization: Bearer
//            only when a key is set.
//   stream:  `data:` chunks with choices[0].delta.content and choices[0].finish_reason ("length"
//            = max_tokens), a last chunk with usage (prompt_tokens including
//            prompt_tokens_details.cached_tokens, completion_tokens), then `data: [DONE]`. A server
//            that sends no usage leaves it unknown (counted as 0, said in a note).
//   continuation: the partial reply as an assistant message, then a user message asking to go on.

#include "llm/chat/wire_format.hpp"

namespace warpforge::llm {

/// The user turn that asks a model cut at max_tokens to go on.
inline constexpr std::string_view openai_continue_prompt =
  "Continue exactly where you stopped, no repetition.";

enum class token_limit_field { max_tokens, max_completion_tokens };

class openai_format final : public wire_format {
public:
  explicit openai_format(token_limit_field limit_field = token_limit_field::max_tokens)
      : limit_field_(limit_field) {}

  std::string_view name() const override { return "openai"; }
  expected<wire_request, std::string> encode(const chat_request& request,
                                             std::string_view key) const override;
  std::unique_ptr<stream_decoder> decoder() const override;
  continuation_request continuation(const chat_request& original,
                                    std::string_view partial) const override;

private:
  token_limit_field limit_field_;
};

/// a finish_reason ("stop", "length", "content_filter", "tool_calls", ...).
stop_reason openai_stop_reason(std::string_view text);

} // namespace warpforge::llm
