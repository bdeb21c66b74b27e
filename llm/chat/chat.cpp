#include "llm/chat/chat.hpp"

#include "foundation/vocabulary/enum_text.hpp"

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

constexpr vocabulary::enum_word<stop_reason> stop_reason_words[] = {
    {stop_reason::end, "end"},
    {stop_reason::max_tokens, "max_tokens"},
    {stop_reason::stop_sequence, "stop_sequence"},
    {stop_reason::refusal, "refusal"},
    {stop_reason::other, "other"},
};
static_assert(vocabulary::covers(stop_reason_words, all_stop_reasons));

std::string_view to_string(stop_reason reason) { return vocabulary::word_of(stop_reason_words, reason); }

constexpr vocabulary::enum_word<chat_error_kind> chat_error_kind_words[] = {
    {chat_error_kind::config, "config"},
    {chat_error_kind::auth, "auth"},
    {chat_error_kind::bad_request, "bad_request"},
    {chat_error_kind::rate_limited, "rate_limited"},
    {chat_error_kind::overloaded, "overloaded"},
    {chat_error_kind::server_error, "server_error"},
    {chat_error_kind::network, "network"},
    {chat_error_kind::timeout, "timeout"},
    {chat_error_kind::malformed_reply, "malformed_reply"},
    {chat_error_kind::budget_exhausted, "budget_exhausted"},
};
static_assert(vocabulary::covers(chat_error_kind_words, all_chat_error_kinds));

std::string_view to_string(chat_error_kind kind) { return vocabulary::word_of(chat_error_kind_words, kind); }

std::optional<stop_reason> stop_reason_from_string(std::string_view text) {
  return vocabulary::value_of(stop_reason_words, text);
}

std::optional<chat_error_kind> chat_error_kind_from_string(std::string_view text) {
  return vocabulary::value_of(chat_error_kind_words, text);
}

} // namespace warpforge::llm
