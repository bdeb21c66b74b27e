#pragma once
// Every default of the feed's sockets, named, with its unit. The campaign spec's [feed] table
// (config/campaign_spec.hpp) starts from these, and `warpforge tail` connects to default_endpoint
// when given none; docs/specs.md quotes the values: change both together.
// Dependencies flow one way: config/ reads the feed's defaults, the feed never includes config/.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpforge::feed {

/// Where the publisher binds and `warpforge tail` connects unless told otherwise (loopback only).
inline constexpr std::string_view default_endpoint = "tcp://127.0.0.1:5757";
/// Events queued per subscriber before ZeroMQ drops that subscriber's next events [messages].
inline constexpr int default_high_water_mark = 10'000;
/// How long closing the publisher waits to flush queued events to subscribers [ms].
inline constexpr std::chrono::milliseconds default_linger{250};
/// Events a subscriber queues before the publisher has to drop [messages].
inline constexpr int default_subscriber_high_water_mark = 100'000;

// The replay endpoint (replay_server.hpp) binds beside the PUB: the feed's port + 1, or a free port
// when the feed's is; it answers "events since seq N" from the run's store.
/// Between heartbeat events (heartbeat.hpp).
inline constexpr std::chrono::milliseconds default_heartbeat_interval{1000};
/// Without an event or a heartbeat for this long, a monitor calls the campaign silent (5 beats).
inline constexpr std::chrono::milliseconds default_silence{5000};
/// Events per replay reply unless the request asks for fewer [events].
inline constexpr std::uint32_t default_replay_page = 1000;
/// The most events one replay reply carries [events].
inline constexpr std::uint32_t max_replay_page = 10'000;
/// How long a replay request waits for the store to hold its `until` (the store lags the PUB by ms).
inline constexpr std::chrono::milliseconds default_replay_catch_up{2000};
/// How long a monitor waits for a replay reply.
inline constexpr std::chrono::milliseconds default_replay_timeout{5000};

// Bounds on what a peer can make the coordinator hold. Every socket a peer can write to sets
// ZMQ_MAXMSGSIZE: ZeroMQ reads a frame's size before its body and disconnects a peer that
// announces more, so an oversized frame is never allocated (docs/events.md, "Limits").
/// The largest frame a subscriber may send the publisher [bytes]: a subscription is one marker
/// byte and a topic prefix, and the longest topic (an event type) is under 32 bytes.
inline constexpr std::int64_t max_subscription_bytes = 256;
/// Frames a subscriber may have queued at the publisher before ZeroMQ stops reading its
/// connection [messages]; subscriptions are tiny and read at every publish.
inline constexpr int subscription_high_water_mark = 1000;
/// The most subscription messages one call reads from the publisher's socket [messages]: a peer
/// that floods subscriptions cannot keep publish() from sending; the rest wait for the next call.
inline constexpr std::size_t max_subscriptions_read_per_call = 10'000;
/// The largest frame a replay request may be [bytes]: a request is a short JSON object.
inline constexpr std::int64_t max_replay_request_bytes = 4096;
/// The most frames one replay request may carry, its ZeroMQ envelope included [frames]; a request
/// with more is read to its end and dropped unanswered.
inline constexpr std::size_t max_replay_request_frames = 8;
/// Requests a replay client may have queued at the server [messages].
inline constexpr int replay_request_high_water_mark = 100;
/// Replies queued to one replay client that does not read them [messages]; beyond it ZeroMQ
/// refuses the next reply, which the server offers again every 20 ms for replay_reply_retry and
/// then drops (the client's request times out).
inline constexpr int replay_reply_high_water_mark = 4;
/// How long a reply the client's queue refused is offered again [ms]: the server's socket learns
/// only every other reply, and on a send at most once a millisecond, that its network thread
/// took the client's replies off their queue, so one that asks again at once can look full.
inline constexpr std::chrono::milliseconds replay_reply_retry{1000};
/// Refused replies the replay server keeps at once [replies], of them at most
/// max_replay_unsent_per_peer to one client, and their event bytes [bytes]; beyond any of
/// these a refused reply is dropped at once.
inline constexpr std::size_t max_replay_unsent_replies = 64;
inline constexpr std::size_t max_replay_unsent_per_peer = 2;
inline constexpr std::size_t max_replay_unsent_bytes = 16 * 1024 * 1024;
/// The most event bytes one replay reply carries [bytes]; a reply that reaches it stops early
/// with `more` (at least one event is always sent), so no reply is larger than this plus one event.
inline constexpr std::size_t max_replay_reply_bytes = 4 * 1024 * 1024;
/// Requests waiting for the store to reach their `until` at once [requests]; beyond it a request
/// is answered at once with what is stored (the client sees stored_last below its until).
inline constexpr std::size_t max_replay_requests_waiting = 64;
/// The largest seq a request may name [seq]: the store keeps seqs as SQLite's signed 64-bit
/// integers, so larger values are refused rather than wrapped.
inline constexpr std::uint64_t max_replay_seq = 9'223'372'036'854'775'807ULL; // 2^63 - 1
/// The largest frame a subscriber or replay client accepts from the feed's host [bytes]; events
/// are a few kB, so only a broken or hostile peer sends more, and ZeroMQ disconnects it.
inline constexpr std::int64_t max_event_bytes = 16 * 1024 * 1024;

} // namespace warpforge::feed
