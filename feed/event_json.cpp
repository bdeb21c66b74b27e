#include "feed/event_json.hpp"

#include "foundation/json/writer.hpp"

#include <simdjson.h>

#include <limits>
#include <optional>

namespace warpforge::feed {
namespace {

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

/// Writes a parsed JSON value back with json::writer, so that text json::writer produced comes
/// back byte for byte (same escaping, same number format).
void write_element(json::writer& out, simdjson::dom::element value) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    // The array and object are held in locals: value_unsafe() on a temporary result returns a
    // reference into that temporary, which a range-for would iterate after it died.
    case element_type::ARRAY: {
      const simdjson::dom::array items = value.get_array().value_unsafe();
      out.begin_array();
      for (auto item : items)
        write_element(out, item);
      out.end_array();
      return;
    }
    case element_type::OBJECT: {
      const simdjson::dom::object members = value.get_object().value_unsafe();
      out.begin_object();
      for (auto member : members) {
        out.key(member.key);
        write_element(out, member.value);
      }
      out.end_object();
      return;
    }
    case element_type::INT64: out.value(value.get_int64().value_unsafe()); return;
    case element_type::UINT64: out.value(value.get_uint64().value_unsafe()); return;
    case element_type::DOUBLE: out.value(value.get_double().value_unsafe()); return;
    case element_type::STRING: out.value(value.get_string().value_unsafe()); return;
    case element_type::BOOL: out.value(value.get_bool().value_unsafe()); return;
    case element_type::NULL_VALUE: out.null(); return;
  }
}

/// The envelope members as found in the text; nullopt = absent.
struct envelope_members {
  std::optional<simdjson::dom::element> schema, seq, ts, type, campaign, job, iter, branch, gpu;

  std::optional<simdjson::dom::element>* slot(std::string_view name) {
    if (name == "schema") return &schema;
    if (name == "seq") return &seq;
    if (name == "ts") return &ts;
    if (name == "type") return &type;
    if (name == "campaign") return &campaign;
    if (name == "job") return &job;
    if (name == "iter") return &iter;
    if (name == "branch") return &branch;
    if (name == "gpu") return &gpu;
    return nullptr;
  }
};

/// A name member: a string, or null / absent for none.
expected<std::string, feed_error> read_name(const std::optional<simdjson::dom::element>& member,
                                            std::string_view place) {
  if (!member || member->is_null())
    return std::string{};
  std::string_view text;
  if (member->get_string().get(text))
    return fail(feed_errc::bad_field, place, "expected a string or null");
  return std::string{text};
}

/// An id member: an integer >= 0, or null / absent for `none`.
expected<std::int64_t, feed_error> read_id(const std::optional<simdjson::dom::element>& member,
                                           std::string_view place, std::int64_t none) {
  if (!member || member->is_null())
    return none;
  std::int64_t number = 0;
  if (member->get_int64().get(number))
    return fail(feed_errc::bad_field, place, "expected an integer or null");
  if (number < 0)
    return fail(feed_errc::bad_field, place, "expected an integer >= 0 or null, got " +
                                                 std::to_string(number));
  return number;
}

} // namespace

std::string encode(const event& e) {
  auto detail_members = object_members(e.detail_json);
  if (!detail_members)
    throw std::invalid_argument("feed::encode: detail_json of a " + std::string{to_string(e.type)} +
                                " event is not a JSON object: " + e.detail_json);

  json::writer w;
  w.begin_object();
  w.key("schema").value(event_schema_version);
  w.key("seq").value(e.seq);
  w.key("ts").value(e.ts);
  w.key("campaign");
  e.campaign.empty() ? w.null() : w.value(e.campaign);
  w.key("job");
  e.job.empty() ? w.null() : w.value(e.job);
  w.key("iter");
  e.iter < 0 ? w.null() : w.value(e.iter);
  w.key("branch");
  e.branch < 0 ? w.null() : w.value(e.branch);
  w.key("gpu");
  e.gpu < 0 ? w.null() : w.value(e.gpu);
  w.key("type").value(to_string(e.type));
  // The detail members sit beside the envelope: raw() outside a key adds the separating comma and
  // splices `"a":1,"b":2` in verbatim.
  if (!detail_members->empty())
    w.raw(*detail_members);
  w.end_object();
  return std::move(w).str();
}

expected<event, feed_error> decode(std::string_view text) {
  // One parser per thread (TOOLCHAIN.md 7.14); parse() copies the text into its padded buffer.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(text.data(), text.size()).get(root))
    return fail(feed_errc::bad_json, "", simdjson::error_message(error));
  simdjson::dom::object object;
  if (root.get_object().get(object))
    return fail(feed_errc::bad_json, "", "expected a JSON object");

  envelope_members envelope;
  json::writer detail_out;
  detail_out.begin_object();
  for (auto member : object) {
    if (auto* slot = envelope.slot(member.key)) {
      if (*slot)
        return fail(feed_errc::bad_field, member.key, "appears twice");
      *slot = member.value;
    } else {
      detail_out.key(member.key);
      write_element(detail_out, member.value);
    }
  }
  detail_out.end_object();

  if (!envelope.schema)
    return fail(feed_errc::missing_field, "schema", "required");
  std::int64_t schema = 0;
  if (envelope.schema->get_int64().get(schema))
    return fail(feed_errc::bad_field, "schema", "expected an integer");
  if (schema != event_schema_version)
    return fail(feed_errc::unsupported_schema, "schema",
                "version " + std::to_string(schema) + ", this build reads version " +
                    std::to_string(event_schema_version));

  if (!envelope.type)
    return fail(feed_errc::missing_field, "type", "required");
  std::string_view type_text;
  if (envelope.type->get_string().get(type_text))
    return fail(feed_errc::bad_field, "type", "expected a string");
  auto type = event_type_from_string(type_text);
  if (!type)
    return fail(feed_errc::unknown_event_type, "type", "'" + std::string{type_text} + "'");

  event e;
  e.type = *type;
  if (!envelope.seq)
    return fail(feed_errc::missing_field, "seq", "required");
  if (envelope.seq->get_uint64().get(e.seq))
    return fail(feed_errc::bad_field, "seq", "expected an integer >= 0");
  if (!envelope.ts)
    return fail(feed_errc::missing_field, "ts", "required");
  if (envelope.ts->get_double().get(e.ts))
    return fail(feed_errc::bad_field, "ts", "expected a number (unix seconds)");

  auto campaign = read_name(envelope.campaign, "campaign");
  if (!campaign)
    return unexpected{campaign.error()};
  e.campaign = std::move(*campaign);
  auto job = read_name(envelope.job, "job");
  if (!job)
    return unexpected{job.error()};
  e.job = std::move(*job);
  auto iter = read_id(envelope.iter, "iter", no_iter);
  if (!iter)
    return unexpected{iter.error()};
  e.iter = *iter;
  auto branch = read_id(envelope.branch, "branch", no_branch);
  if (!branch)
    return unexpected{branch.error()};
  e.branch = *branch;
  auto gpu = read_id(envelope.gpu, "gpu", no_gpu);
  if (!gpu)
    return unexpected{gpu.error()};
  if (*gpu > std::numeric_limits<int>::max())
    return fail(feed_errc::bad_field, "gpu", "out of range: " + std::to_string(*gpu));
  e.gpu = static_cast<int>(*gpu);

  e.detail_json = std::move(detail_out).str();
  return e;
}

} // namespace warpforge::feed
