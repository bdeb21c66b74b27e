#include "gpu/runner/protocol.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/json_fields.hpp"

#include <utility>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<runner_request_kind> runner_request_kind_words[] = {
    {runner_request_kind::hello, "hello"},
    {runner_request_kind::device_query, "device_query"},
    {runner_request_kind::shutdown, "shutdown"},
    {runner_request_kind::run_race, "run_race"},
    {runner_request_kind::profile_candidate, "profile_candidate"},
    {runner_request_kind::profile_candidates, "profile_candidates"},
};
static_assert(vocabulary::covers(runner_request_kind_words, all_runner_request_kinds));

std::string_view to_string(runner_request_kind kind) { return vocabulary::word_of(runner_request_kind_words, kind); }

std::optional<runner_request_kind> runner_request_kind_from_string(std::string_view text) {
  return vocabulary::value_of(runner_request_kind_words, text);
}

constexpr vocabulary::enum_word<runner_reply_status> runner_reply_status_words[] = {
    {runner_reply_status::ok, "ok"},
    {runner_reply_status::bad_request, "bad_request"},
    {runner_reply_status::failed, "failed"},
};
static_assert(vocabulary::covers(runner_reply_status_words, all_runner_reply_statuses));

std::string_view to_string(runner_reply_status status) {
  return vocabulary::word_of(runner_reply_status_words, status);
}

std::optional<runner_reply_status> runner_reply_status_from_string(std::string_view text) {
  return vocabulary::value_of(runner_reply_status_words, text);
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

constexpr vocabulary::enum_word<device_query_depth> device_query_depth_words[] = {
    {device_query_depth::full, "full"},
    {device_query_depth::properties, "properties"},
};
static_assert(vocabulary::covers(device_query_depth_words, all_device_query_depths));

std::string_view to_string(device_query_depth depth) { return vocabulary::word_of(device_query_depth_words, depth); }

std::optional<device_query_depth> device_query_depth_from_string(std::string_view text) {
  return vocabulary::value_of(device_query_depth_words, text);
}

std::string encode_device_query_body(device_query_depth depth) {
  json::writer out;
  out.begin_object();
  out.key("depth").value(to_string(depth));
  out.end_object();
  return std::move(out).str();
}

expected<device_query_depth, json_error> decode_device_query_body(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, "device_query");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "device_query"};
  std::optional<std::string> word;
  in.optional("depth", word);
  auto depth = word ? device_query_depth_from_string(*word) : device_query_depth::full;
  if (in.ok() && !depth)
    in.fail("depth", "unknown value '" + *word + "' (full or properties)");
  if (!in.ok())
    return unexpected(in.error());
  return *depth;
}

} // namespace warpforge::gpu
