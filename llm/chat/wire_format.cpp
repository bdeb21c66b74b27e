// What every wire format shares: the request's sanity check and the provider's own words from an
// error (an error response body or an error event in a stream).
#include "llm/chat/json_read.hpp"
#include "llm/chat/wire_format.hpp"

namespace warpforge::llm {

namespace {

// The first string found at one of `pointers`.
std::optional<std::string> first_string(std::string_view body,
                                        std::initializer_list<std::string_view> pointers) {
  simdjson::dom::parser parser;
  auto root = json_read::parse_object(parser, body);
  if (!root)
    return std::nullopt;
  for (auto pointer : pointers)
    if (auto value = json_read::optional_string(*root, pointer); value && *value)
      return std::string{**value};
  return std::nullopt;
}

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

} // namespace

std::optional<std::string> request_problem(const chat_request& request) {
  if (request.model.empty())
    return "no model named";
  if (request.messages.empty())
    return "no messages";
  if (request.messages.front().who != role::user)
    return "the first message must be the user's";
  if (request.max_tokens == 0)
    return "max_tokens is 0";
  return std::nullopt;
}

std::optional<std::string> provider_error_message(std::string_view body) {
  return first_string(body, {"/error/message", "/error", "/message", "/detail"});
}

std::string provider_error_type(std::string_view body) {
  return first_string(body, {"/error/type", "/error/code", "/type"}).value_or("");
}

stream_problem error_event_problem(std::string_view provider, std::string_view type,
                                   std::string_view message) {
  stream_problem problem{chat_error_kind::server_error, true, ""};
  if (has(type, "overloaded"))
    problem.kind = chat_error_kind::overloaded;
  else if (has(type, "rate_limit"))
    problem.kind = chat_error_kind::rate_limited;
  else if (has(type, "timeout"))
    problem.kind = chat_error_kind::timeout;
  else if (has(type, "authentication") || has(type, "permission") || has(type, "api_key"))
    problem = {chat_error_kind::auth, false, ""};
  else if (has(type, "invalid_request") || has(type, "not_found") || has(type, "too_large"))
    problem = {chat_error_kind::bad_request, false, ""};
  problem.message = std::string{provider} + ": the stream reported an error" +
                    (type.empty() ? std::string{} : " (" + std::string{type} + ")") + ": " +
                    json_read::excerpt(message, 300);
  return problem;
}

} // namespace warpforge::llm
