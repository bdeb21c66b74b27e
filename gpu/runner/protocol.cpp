#include "gpu/runner/protocol.hpp"

#include "gpu/json_fields.hpp"
#include "foundation/json/writer.hpp"

#include <utility>

namespace warpforge::gpu {

std::string_view to_string(runner_request_kind kind) {
  switch (kind) {
    case runner_request_kind::hello: return "hello";
    case runner_request_kind::device_query: return "device_query";
    case runner_request_kind::shutdown: return "shutdown";
    case runner_request_kind::run_race: return "run_race";
    case runner_request_kind::profile_candidate: return "profile_candidate";
  }
  return "unknown";
}

std::optional<runner_request_kind> runner_request_kind_from_string(std::string_view text) {
  for (auto kind : all_runner_request_kinds)
    if (to_string(kind) == text)
      return kind;
  return std::nullopt;
}

std::string_view to_string(runner_reply_status status) {
  switch (status) {
    case runner_reply_status::ok: return "ok";
    case runner_reply_status::bad_request: return "bad_request";
    case runner_reply_status::failed: return "failed";
  }
  return "unknown";
}

std::optional<runner_reply_status> runner_reply_status_from_string(std::string_view text) {
  for (auto status : all_runner_reply_statuses)
    if (to_string(status) == text)
      return status;
  return std::nullopt;
}

namespace {

// A body is spliced in verbatim; anything but a non-empty text is written as an empty object.
std::string_view body_or_empty(const std::string& body) {
  return body.empty() ? std::string_view{"{}"} : std::string_view{body};
}

// Reads the fields every envelope has: protocol, id, kind, body.
template <class Envelope>
void read_envelope(json_object_reader& in, Envelope& out) {
  int protocol = 0;
  in.required("protocol", protocol);
  if (in.ok() && protocol != runner_protocol_version)
    in.fail("protocol", "version " + std::to_string(protocol) + ", this side speaks " +
                            std::to_string(runner_protocol_version));
  in.required("id", out.id);
  std::string kind;
  in.required("kind", kind);
  if (in.ok()) {
    if (auto parsed = runner_request_kind_from_string(kind))
      out.kind = *parsed;
    else
      in.fail("kind", "unknown kind '" + kind + "'");
  }
  simdjson::dom::object body;
  in.required("body", body);
  if (in.ok())
    out.body_json = simdjson::minify(body);
}

} // namespace

std::string encode(const runner_request& request) {
  json::writer out;
  out.begin_object();
  out.key("protocol").value(runner_protocol_version);
  out.key("id").value(request.id);
  out.key("kind").value(to_string(request.kind));
  out.key("body").raw(body_or_empty(request.body_json));
  out.end_object();
  return std::move(out).str();
}

std::string encode(const runner_reply& reply) {
  json::writer out;
  out.begin_object();
  out.key("protocol").value(runner_protocol_version);
  out.key("id").value(reply.id);
  out.key("kind").value(to_string(reply.kind));
  out.key("status").value(to_string(reply.status));
  out.key("error").value(reply.error);
  out.key("body").raw(body_or_empty(reply.body_json));
  out.end_object();
  return std::move(out).str();
}

expected<runner_request, json_error> decode_request(std::string_view text) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, text, "request");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "request"};
  runner_request request;
  read_envelope(in, request);
  if (!in.ok())
    return unexpected(in.error());
  return request;
}

expected<runner_reply, json_error> decode_reply(std::string_view text) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, text, "reply");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "reply"};
  runner_reply reply;
  read_envelope(in, reply);
  std::string status;
  in.required("status", status);
  if (in.ok()) {
    if (auto parsed = runner_reply_status_from_string(status))
      reply.status = *parsed;
    else
      in.fail("status", "unknown status '" + status + "'");
  }
  in.required("error", reply.error);
  if (!in.ok())
    return unexpected(in.error());
  return reply;
}

std::uint64_t peek_request_id(std::string_view text) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, text, "request");
  if (!object)
    return 0;
  std::uint64_t id = 0;
  if (object->at_key("id").get(id) != simdjson::SUCCESS)
    return 0;
  return id;
}

std::string encode_body(const runner_hello& hello) {
  json::writer out;
  out.begin_object();
  out.key("pid").value(hello.pid);
  out.key("protocol").value(hello.protocol);
  out.end_object();
  return std::move(out).str();
}

expected<runner_hello, json_error> decode_hello_body(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, "hello");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "hello"};
  runner_hello hello;
  in.required("pid", hello.pid);
  in.required("protocol", hello.protocol);
  if (!in.ok())
    return unexpected(in.error());
  return hello;
}

} // namespace warpforge::gpu
