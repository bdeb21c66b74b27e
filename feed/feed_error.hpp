#pragma once
// What went wrong in the feed library: an expected failure, returned as a value (never thrown).
// Every error names its place: the JSON member, the endpoint part or the frame at fault.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::feed {

enum class feed_errc : std::uint8_t {
  bad_json,           // the text is not JSON, or not a JSON object
  missing_field,      // a required envelope member is absent
  bad_field,          // a member has the wrong JSON type or an out-of-range value
  unsupported_schema, // "schema" is a version this build does not read
  unknown_event_type, // "type" names no event_type
  bad_message,        // a ZeroMQ message with the wrong frame count, or a topic that is not its type
  bad_endpoint,       // the endpoint text is not transport://address this library understands
  remote_not_allowed, // a bind address reachable from other hosts, without allow_remote
  bad_option,         // a publisher or subscriber option out of range (a high-water mark <= 0)
  socket_error,       // a ZeroMQ call failed (bind, connect, receive)
  address_in_use,     // a bind to an address another socket holds (another campaign's feed?)
  no_reply,           // a replay request got no reply within its timeout
  replay_refused,     // the replay endpoint answered with an error status (bad_request, unavailable)
};

std::string_view to_string(feed_errc code);
std::optional<feed_errc> feed_errc_from_string(std::string_view text);

/// Every value, for exhaustive tests and documentation tables.
inline constexpr feed_errc all_feed_errcs[] = {
  feed_errc::bad_json,       feed_errc::missing_field,      feed_errc::bad_field,
  feed_errc::unsupported_schema, feed_errc::unknown_event_type, feed_errc::bad_message,
  feed_errc::bad_endpoint,   feed_errc::remote_not_allowed, feed_errc::bad_option,
  feed_errc::socket_error,   feed_errc::address_in_use,     feed_errc::no_reply,
  feed_errc::replay_refused,
};

struct feed_error {
  feed_errc code = feed_errc::bad_json;
  std::string place;   // what is at fault: a JSON member ("gpu"), an endpoint part ("host"), "frames"
  std::string message; // what was wrong with it, for a person
};

/// "bad_field: gpu: expected an integer or null".
std::string to_string(const feed_error& error);

} // namespace warpforge::feed
