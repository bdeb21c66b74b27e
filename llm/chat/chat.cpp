#include "llm/chat/chat.hpp"

namespace warpforge::llm {

std::string_view to_string(role who) {
  switch (who) {
    case role::user: return "user";
    case role::assistant: return "assistant";
  }
  return "user";
}

token_usage& token_usage::operator+=(const token_usage& other) {
  input += other.input;
  output += other.output;
  cache_read += other.cache_read;
  cache_write += other.cache_write;
  return *this;
}

std::int64_t token_usage::total() const {
  return input + output + cache_read + cache_write;
}

std::string_view to_string(stop_reason reason) {
  switch (reason) {
    case stop_reason::end: return "end";
    case stop_reason::max_tokens: return "max_tokens";
    case stop_reason::stop_sequence: return "stop_sequence";
    case stop_reason::refusal: return "refusal";
    case stop_reason::other: return "other";
  }
  return "other";
}

std::string_view to_string(chat_error_kind kind) {
  switch (kind) {
    case chat_error_kind::config: return "config";
    case chat_error_kind::auth: return "auth";
    case chat_error_kind::bad_request: return "bad_request";
    case chat_error_kind::rate_limited: return "rate_limited";
    case chat_error_kind::overloaded: return "overloaded";
    case chat_error_kind::server_error: return "server_error";
    case chat_error_kind::network: return "network";
    case chat_error_kind::timeout: return "timeout";
    case chat_error_kind::malformed_reply: return "malformed_reply";
    case chat_error_kind::budget_exhausted: return "budget_exhausted";
  }
  return "config";
}

std::optional<stop_reason> stop_reason_from_string(std::string_view text) {
  for (auto reason : all_stop_reasons)
    if (to_string(reason) == text)
      return reason;
  return std::nullopt;
}

std::optional<chat_error_kind> chat_error_kind_from_string(std::string_view text) {
  for (auto kind : all_chat_error_kinds)
    if (to_string(kind) == text)
      return kind;
  return std::nullopt;
}

} // namespace warpforge::llm
