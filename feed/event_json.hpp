#pragma once
// Events as JSON text: the one wire and storage format (docs/events.md).
//
//   {"schema":1,"seq":42,"ts":1764000000.25,"campaign":"nightly","job":"gemm","iter":3,
//    "branch":null,"gpu":0,"type":"branch_measured","time_s":0.00123,"cv":0.01}
//
// One flat object: the envelope first, then the detail members. Absent ids (empty campaign/job,
// negative iter/branch/gpu) are written as null. decode(encode(e)) == e, and encode(decode(t)) == t
// for every text encode produced.

#include "foundation/expected/expected.hpp"
#include "feed/event.hpp"
#include "feed/feed_error.hpp"

#include <string>
#include <string_view>

namespace warpforge::feed {

/// An event with the JSON text it arrived as: what `tail --json` prints is what was published.
struct wire_event {
  event decoded;
  std::string json;
};

/// The event as one line of JSON (no newline). Throws std::invalid_argument when detail_json is
/// not a JSON object (a broken invariant in the producer; `detail` always builds one).
std::string encode(const event& e);

/// Reads an event. Fails with the member at fault: bad_json (not JSON / not an object),
/// missing_field (schema, seq, ts, type), bad_field (wrong JSON type, negative id, duplicate
/// envelope member), unsupported_schema (schema != event_schema_version), unknown_event_type.
/// Missing campaign/job/iter/branch/gpu read as absent. Every other member goes to detail_json,
/// in order. Safe to call from several threads: each thread parses with its own parser.
expected<event, feed_error> decode(std::string_view text);

} // namespace warpforge::feed
