#include "llm/chat/exchange.hpp"

#include "llm/chat/json_read.hpp"
#include "llm/http/retry.hpp"
#include "llm/http/sse.hpp"
#include "llm/http/transport.hpp"

#include <algorithm>
#include <cctype>

namespace warpforge::llm {

namespace {

constexpr std::size_t error_body_limit = 64 * 1024;  // bytes of an error body kept for its message
constexpr std::size_t foreign_body_limit = 4 * 1024; // bytes of a non-stream 200 body kept

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Reads the body as the head decides: events into the decoder, or the bytes of anything else.
struct body_reader {
  enum class mode { events, error_body, foreign };

  explicit body_reader(stream_decoder& d) : decoder(d) {}

  void on_head(const http::response_head& head) {
    status = head.status;
    content_type = head.find("content-type").value_or("");
    if (head.status / 100 != 2)
      how = mode::error_body;
    // A server that names no type gets the benefit of the doubt; the decoder judges the bytes.
    else if (!content_type.empty() && !lower(content_type).starts_with("text/event-stream"))
      how = mode::foreign;
  }

  void on_body(std::string_view piece) {
    if (how != mode::events) {
      const std::size_t limit = how == mode::error_body ? error_body_limit : foreign_body_limit;
      kept.append(piece.substr(0, limit - std::min(limit, kept.size())));
      return;
    }
    // After a problem the rest of the stream is read and dropped: the server ends it soon, and
    // the transport offers no way to stop early but an exception.
    if (!problem)
      parser.feed(piece, [this](const http::sse_event& event) {
        if (!problem)
          problem = decoder.on_event(event.event, event.data);
      });
  }

  stream_decoder& decoder;
  http::sse_parser parser;
  mode how = mode::events;
  std::optional<unsigned> status;
  std::string content_type;
  std::string kept;
  std::optional<stream_problem> problem;
};

exchange_failure from_problem(const stream_problem& problem, std::optional<unsigned> status) {
  return {problem.kind, problem.retryable, problem.message, status, std::nullopt};
}

exchange_failure from_transport(const exchange_target& target, const http::failure& failure,
                                std::optional<unsigned> status) {
  chat_error_kind kind = chat_error_kind::network;
  switch (failure.kind) {
    case http::failure_kind::timeout_connect:
    case http::failure_kind::timeout_first_byte:
    case http::failure_kind::timeout_idle:
    case http::failure_kind::timeout_total: kind = chat_error_kind::timeout; break;
    case http::failure_kind::bad_url: kind = chat_error_kind::config; break;
    default: break;
  }
  return {kind, http::retryable(failure.kind),
          std::string{target.provider} + ": " + std::string{http::to_string(failure.kind)} + ": " +
            failure.message,
          status, std::nullopt};
}

exchange_failure from_status(const exchange_target& target, const http::response_head& head,
                             const body_reader& body) {
  exchange_failure out{kind_of_status(head.status), http::retryable_status(head.status), "",
                       head.status, std::nullopt};
  if (auto after = head.find("retry-after"))
    out.retry_after = http::parse_retry_after(*after, std::chrono::system_clock::now());
  out.message = std::string{target.provider} + ": HTTP " + std::to_string(head.status) + " from " +
                target.base.origin() + ": ";
  if (auto said = provider_error_message(body.kept)) {
    const std::string type = provider_error_type(body.kept);
    out.message += (type.empty() ? "" : type + ": ") + json_read::excerpt(*said, 500);
  } else {
    out.message += "not the provider's JSON error (" +
                   (body.content_type.empty() ? std::string{"no content type"} : body.content_type) +
                   "): '" + json_read::excerpt(body.kept, 200) + "'";
  }
  return out;
}

} // namespace

chat_error_kind kind_of_status(unsigned status) {
  if (status == 401 || status == 403)
    return chat_error_kind::auth;
  if (status == 408)
    return chat_error_kind::timeout;
  if (status == 429)
    return chat_error_kind::rate_limited;
  if (status == 529)
    return chat_error_kind::overloaded;
  if (status >= 500)
    return chat_error_kind::server_error;
  if (status >= 400)
    return chat_error_kind::bad_request;
  return chat_error_kind::malformed_reply; // 1xx, 3xx: nothing a provider should answer
}

expected<exchange_reply, exchange_failure> run_exchange(const exchange_target& target,
                                                        const wire_request& wire,
                                                        stream_decoder& decoder) {
  http::request request;
  request.target = http::join(target.base, wire.path);
  for (const auto& [name, value] : wire.headers)
    request.headers.push_back({name, value});
  request.body = wire.body;
  request.limits = target.limits;
  if (target.env != nullptr)
    request.proxy = http::proxy_for(request.target, *target.env);
  request.ca_file = target.ca_file;

  body_reader body{decoder};
  auto head = http::send(
    request, [&body](const http::response_head& h) { body.on_head(h); },
    [&body](std::string_view piece) { body.on_body(piece); });
  if (!head) {
    if (body.problem) // the decoder saw why before the connection went
      return unexpected(from_problem(*body.problem, body.status));
    return unexpected(from_transport(target, head.error(), body.status));
  }
  if (body.how == body_reader::mode::error_body)
    return unexpected(from_status(target, *head, body));
  if (body.how == body_reader::mode::foreign)
    return unexpected(exchange_failure{
      chat_error_kind::malformed_reply, false,
      std::string{target.provider} + ": HTTP " + std::to_string(head->status) +
        " with " + body.content_type + ", not an event stream: '" +
        json_read::excerpt(body.kept, 200) + "'",
      head->status, std::nullopt});
  if (body.problem)
    return unexpected(from_problem(*body.problem, head->status));
  auto reply = decoder.finish();
  if (!reply)
    return unexpected(from_problem(reply.error(), head->status));
  if (auto id = head->find("request-id").value_or(head->find("x-request-id").value_or(""));
      !id.empty())
    reply->id = id;
  return std::move(*reply);
}

} // namespace warpforge::llm
