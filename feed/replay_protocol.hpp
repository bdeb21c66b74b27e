#pragma once
// Replay over the network, the wire format: a monitor asks the replay endpoint (a ZeroMQ REP
// socket beside the feed's PUB, feed/replay_server.hpp) for stored events it missed. This is the
// ZeroMQ guide's "snapshot + updates": subscribe first, ask for what came before, apply by seq.
//
// Request: one frame, a JSON object
//   {"after": 41, "until": 120, "limit": 1000}
//   after  integer 0..2^63-1 (max_replay_seq), required: events with seq > after
//   until  integer after..2^63-1, optional: and seq <= until. The server waits up to
//          default_replay_catch_up (feed/defaults.hpp) for its store to hold seq `until`
//          (the store lags the PUB socket by milliseconds), then answers with what it has.
//   limit  integer >= 1, optional (default default_replay_page, cut to max_replay_page): events
//          per reply
//   A seq above 2^63-1 is refused (bad_request naming the member), never wrapped: the store's
//   seqs are SQLite's signed 64-bit integers.
// Reply: several frames: the header, then one frame per event, each its JSON exactly as published
//   {"status":"ok","after":41,"until":120,"count":79,"first":42,"last":120,"stored_last":130,
//    "more":false}
//   {"status":"bad_request","place":"after","message":"required"}             (no event frames)
// `more` is true when the reply stopped at `limit` (or at max_replay_reply_bytes of events) and
// the store holds further events in range: ask again with after = last. docs/events.md has the
// client recipe.

#include "foundation/expected/expected.hpp"
#include "feed/feed_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::feed {

enum class replay_status : std::uint8_t {
  ok,          // the events follow (perhaps none)
  bad_request, // the request is not what this format says; place and message say why
  unavailable, // the store cannot be read now (not created yet, locked, broken); try again later
};

std::string_view to_string(replay_status status);
std::optional<replay_status> replay_status_from_string(std::string_view text);

inline constexpr replay_status all_replay_statuses[] = {
  replay_status::ok, replay_status::bad_request, replay_status::unavailable};

struct replay_request {
  std::uint64_t after = 0;            // events with seq > after
  std::optional<std::uint64_t> until; // and seq <= until; nullopt: up to the newest stored
  std::optional<std::uint32_t> limit; // events per reply; nullopt: the server's default page

  friend bool operator==(const replay_request&, const replay_request&) = default;
};

struct replay_header {
  replay_status status = replay_status::ok;
  std::uint64_t after = 0;            // as requested
  std::optional<std::uint64_t> until; // as requested
  std::uint64_t count = 0;            // event frames after this header
  std::optional<std::uint64_t> first; // seq of the first event sent; nullopt when none
  std::optional<std::uint64_t> last;  // seq of the last event sent; nullopt when none
  std::uint64_t stored_last = 0;      // the newest seq in the store when it answered; 0 = none
  bool more = false;                  // the store holds more in range: ask again after `last`
  std::string place;                  // errors: the request member at fault
  std::string message;                // errors: what was wrong, for a person

  friend bool operator==(const replay_header&, const replay_header&) = default;
};

std::string encode(const replay_request& request);
/// Fails with bad_json (not a JSON object) or bad_field naming the member (after, until, limit;
/// a seq above max_replay_seq, an until below after, a limit of 0), or missing_field for a
/// missing `after`. Unknown members are ignored.
expected<replay_request, feed_error> decode_replay_request(std::string_view text);

std::string encode(const replay_header& header);
/// Fails with bad_json, missing_field (status) or bad_field naming the member.
expected<replay_header, feed_error> decode_replay_header(std::string_view text);

} // namespace warpforge::feed
