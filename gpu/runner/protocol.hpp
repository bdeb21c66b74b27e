#pragma once
// The coordinator ↔ warpforge-runner protocol: one JSON object per ZeroMQ message, over a pair
// of DEALER sockets on an ipc:// endpoint (docs/runner-protocol.md). The client binds, spawns the
// runner, and the runner connects and greets with a `hello` reply (id 0). After that the client
// sends requests with ids counting up from 1 and the runner answers each with a reply carrying
// the same id; a reply whose id the client no longer waits for is dropped.
//
//   request: {"protocol":1,"id":7,"kind":"device_query","body":{"depth":"properties"}}
//   reply:   {"protocol":1,"id":7,"kind":"device_query","status":"ok","error":"","body":{...}}
//
// The envelope is fixed; each kind defines its body (an object). New kinds add an enum value and
// a body codec; a runner answers a kind it does not know
// with status bad_request, so old runners fail loudly rather than hang.

#include "foundation/expected/expected.hpp"
#include "gpu/json_error.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::gpu {

/// Bumped when the envelope or an existing body changes incompatibly.
inline constexpr int runner_protocol_version = 1;

/// The id of the runner's unasked greeting; requests count up from 1.
inline constexpr std::uint64_t runner_hello_id = 0;

enum class runner_request_kind {
  hello,        // the runner's greeting on connect (id 0); a client may send it as a ping
  device_query, // reply body: host_report (gpu/device_report.hpp)
  shutdown,     // the runner replies, closes its socket and exits 0
  run_race,     // body: race_request; reply body: race_result (gpu/runner/race_request.hpp)
  profile_candidate, // body: profile_request; reply body: profile_result
                     // (gpu/runner/profile_request.hpp)
  profile_candidates, // body: {"profiles": [profile_request, ...]}; reply body:
                      // {"results": [profile_result, ...]}: one batch, one range profiler session
};

inline constexpr std::array all_runner_request_kinds{
  runner_request_kind::hello, runner_request_kind::device_query, runner_request_kind::shutdown,
  runner_request_kind::run_race, runner_request_kind::profile_candidate,
  runner_request_kind::profile_candidates};

std::string_view to_string(runner_request_kind kind);
std::optional<runner_request_kind> runner_request_kind_from_string(std::string_view text);

enum class runner_reply_status {
  ok,          // body holds the kind's result
  bad_request, // the request could not be decoded or its kind is unknown; see error
  failed,      // the request was understood but could not be carried out; see error
};

inline constexpr std::array all_runner_reply_statuses{
  runner_reply_status::ok, runner_reply_status::bad_request, runner_reply_status::failed};

std::string_view to_string(runner_reply_status status);
std::optional<runner_reply_status> runner_reply_status_from_string(std::string_view text);

struct runner_request {
  std::uint64_t id = 0;
  runner_request_kind kind = runner_request_kind::hello;
  std::string body_json = "{}"; // a JSON object, the kind's arguments

  friend bool operator==(const runner_request&, const runner_request&) = default;
};

struct runner_reply {
  std::uint64_t id = 0;
  runner_request_kind kind = runner_request_kind::hello;
  runner_reply_status status = runner_reply_status::ok;
  std::string error;            // empty when ok
  std::string body_json = "{}"; // a JSON object, the kind's result

  friend bool operator==(const runner_reply&, const runner_reply&) = default;
};

/// Body of the hello reply.
struct runner_hello {
  std::int64_t pid = 0;                 // the runner's process id
  int protocol = runner_protocol_version;

  friend bool operator==(const runner_hello&, const runner_hello&) = default;
};

/// Envelopes. The body is written verbatim: the caller passes a JSON object it produced with
/// json::writer.
std::string encode(const runner_request& request);
std::string encode(const runner_reply& reply);

/// Decoding never throws; malformed input, a wrong protocol version, an unknown kind or a body
/// that is not an object are errors naming the field.
expected<runner_request, json_error> decode_request(std::string_view text);
expected<runner_reply, json_error> decode_reply(std::string_view text);

/// The id of a request that failed to decode, if it has one (so the error reply can carry it);
/// 0 otherwise.
std::uint64_t peek_request_id(std::string_view text);

std::string encode_body(const runner_hello& hello);
expected<runner_hello, json_error> decode_hello_body(std::string_view body_json);

/// How much a device_query asks of each device. `full` opens a context on every device to ask
/// CUPTI about its counters (0.15-0.3 s a device on an H200): warpforge doctor and
/// `warpforge-runner --query`. `properties` reads what the driver says without a context: a
/// command's GPU discovery, which decides nothing by counter access (a profile that finds the
/// counters restricted says so and falls back to ncu) and whose GPUs are then opened by their
/// own runners.
enum class device_query_depth { full, properties };
inline constexpr device_query_depth all_device_query_depths[] = {device_query_depth::full,
                                                                 device_query_depth::properties};
std::string_view to_string(device_query_depth depth);
std::optional<device_query_depth> device_query_depth_from_string(std::string_view text);

/// Body of a device_query request: {"depth":"full"|"properties"}; {} (no depth) is full.
std::string encode_device_query_body(device_query_depth depth);
expected<device_query_depth, json_error> decode_device_query_body(std::string_view body_json);

} // namespace warpforge::gpu
