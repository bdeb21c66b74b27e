#include "feed/replay_protocol.hpp"

#include "feed/defaults.hpp"
#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <simdjson.h>

#include <limits>

namespace warpforge::feed {
namespace {

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

expected<simdjson::dom::object, feed_error> parse_object(simdjson::dom::parser& parser,
                                                          std::string_view text) {
  simdjson::dom::element root;
  if (auto error = parser.parse(text.data(), text.size()).get(root)) {
    // simdjson refuses the whole text for an integer beyond 64 bits (as for any malformed
    // number), without naming its member.
    if (error == simdjson::NUMBER_ERROR)
      return fail(feed_errc::bad_field, "",
                  "a malformed number, or an integer beyond 64 bits (a seq is at most 2^63 - 1 = " +
                    std::to_string(max_replay_seq) + ")");
    return fail(feed_errc::bad_json, "", simdjson::error_message(error));
  }
  simdjson::dom::object object;
  if (root.get_object().get(object))
    return fail(feed_errc::bad_json, "", "expected a JSON object");
  return object;
}

/// An optional unsigned member: absent or null = nullopt.
expected<std::optional<std::uint64_t>, feed_error> optional_count(simdjson::dom::object object,
                                                                  std::string_view name) {
  simdjson::dom::element member;
  if (object[name].get(member) || member.is_null())
    return std::optional<std::uint64_t>{};
  std::uint64_t number = 0;
  if (member.get_uint64().get(number))
    return fail(feed_errc::bad_field, name, "expected an integer >= 0 or null");
  return std::optional{number};
}

/// An optional seq member: absent or null = nullopt; above max_replay_seq is refused, never
/// wrapped (the store's seqs are signed 64-bit).
expected<std::optional<std::uint64_t>, feed_error> optional_seq(simdjson::dom::object object,
                                                                std::string_view name) {
  auto value = optional_count(object, name);
  if (value && *value && **value > max_replay_seq)
    return fail(feed_errc::bad_field, name,
                std::to_string(**value) + " is above the largest seq (2^63 - 1 = " +
                  std::to_string(max_replay_seq) + ")");
  return value;
}

void optional_value(json::writer& w, std::string_view name, std::optional<std::uint64_t> value) {
  w.key(name);
  value ? w.value(*value) : w.null();
}

} // namespace

constexpr vocabulary::enum_word<replay_status> replay_status_words[] = {
    {replay_status::ok, "ok"},
    {replay_status::bad_request, "bad_request"},
    {replay_status::unavailable, "unavailable"},
};
static_assert(vocabulary::covers(replay_status_words, all_replay_statuses));

std::string_view to_string(replay_status status) { return vocabulary::word_of(replay_status_words, status); }

std::optional<replay_status> replay_status_from_string(std::string_view text) {
  return vocabulary::value_of(replay_status_words, text);
}

std::string encode(const replay_request& request) {
  json::writer w;
  w.begin_object().key("after").value(request.after);
  if (request.until)
    w.key("until").value(*request.until);
  if (request.limit)
    w.key("limit").value(*request.limit);
  w.end_object();
  return std::move(w).str();
}

expected<replay_request, feed_error> decode_replay_request(std::string_view text) {
  thread_local simdjson::dom::parser parser; // one per thread (TOOLCHAIN.md 7.14)
  auto object = parse_object(parser, text);
  if (!object)
    return unexpected{object.error()};

  replay_request request;
  auto after = optional_seq(*object, "after");
  if (!after)
    return unexpected{after.error()};
  if (!*after)
    return fail(feed_errc::missing_field, "after",
                "required: the last seq you have (0 for everything)");
  request.after = **after;

  auto until = optional_seq(*object, "until");
  if (!until)
    return unexpected{until.error()};
  if (*until && **until < request.after)
    return fail(feed_errc::bad_field, "until",
                std::to_string(**until) + " is below after (" + std::to_string(request.after) + ")");
  request.until = *until;

  auto limit = optional_count(*object, "limit");
  if (!limit)
    return unexpected{limit.error()};
  if (*limit) {
    if (**limit == 0 || **limit > std::numeric_limits<std::uint32_t>::max())
      return fail(feed_errc::bad_field, "limit",
                  "expected an integer >= 1, got " + std::to_string(**limit));
    request.limit = static_cast<std::uint32_t>(**limit);
  }
  return request;
}

std::string encode(const replay_header& header) {
  json::writer w;
  w.begin_object().key("status").value(to_string(header.status));
  if (header.status != replay_status::ok) {
    w.key("place").value(header.place).key("message").value(header.message).end_object();
    return std::move(w).str();
  }
  w.key("after").value(header.after);
  optional_value(w, "until", header.until);
  w.key("count").value(header.count);
  optional_value(w, "first", header.first);
  optional_value(w, "last", header.last);
  w.key("stored_last").value(header.stored_last);
  w.key("more").value(header.more);
  w.end_object();
  return std::move(w).str();
}

expected<replay_header, feed_error> decode_replay_header(std::string_view text) {
  thread_local simdjson::dom::parser parser;
  auto object = parse_object(parser, text);
  if (!object)
    return unexpected{object.error()};

  replay_header header;
  std::string_view status_text;
  if ((*object)["status"].get_string().get(status_text))
    return fail(feed_errc::missing_field, "status", "required, a string");
  auto status = replay_status_from_string(status_text);
  if (!status)
    return fail(feed_errc::bad_field, "status", "'" + std::string{status_text} + "' is unknown");
  header.status = *status;
  if (header.status != replay_status::ok) {
    // Both are for a person; a reply without them is still a refusal.
    if (std::string_view member; !(*object)["place"].get_string().get(member))
      header.place = std::string{member};
    if (std::string_view member; !(*object)["message"].get_string().get(member))
      header.message = std::string{member};
    return header;
  }

  struct required_count {
    std::string_view name;
    std::uint64_t* slot;
  };
  for (auto [name, slot] : {required_count{"after", &header.after},
                            required_count{"count", &header.count},
                            required_count{"stored_last", &header.stored_last}})
    if ((*object)[name].get_uint64().get(*slot))
      return fail(feed_errc::bad_field, name, "expected an integer >= 0");
  for (auto [name, slot] : {std::pair{std::string_view{"until"}, &header.until},
                            std::pair{std::string_view{"first"}, &header.first},
                            std::pair{std::string_view{"last"}, &header.last}}) {
    auto value = optional_count(*object, name);
    if (!value)
      return unexpected{value.error()};
    *slot = *value;
  }
  if ((*object)["more"].get_bool().get(header.more))
    return fail(feed_errc::bad_field, "more", "expected true or false");
  return header;
}

} // namespace warpforge::feed
