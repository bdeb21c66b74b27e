#pragma once
// The feed's sending end: every event, as JSON, on a ZeroMQ XPUB socket, topic = event type.
//
// publish() never blocks the pipeline. The socket runs with ZMQ_XPUB_NODROP and every send with
// ZMQ_DONTWAIT: when a subscriber's queue (high_water_mark events, plus its own receive queue and
// the kernel's TCP buffers) is full, the send fails with EAGAIN and the event is counted in
// dropped() instead. The trade-off of NODROP: the event is dropped for *every* subscriber whose
// topics match it, not only the stalled one, because ZeroMQ sends a message to all matching
// subscribers or to none. We take that for the count: a plain PUB drops silently per subscriber
// and nobody can tell. Nothing is lost for good: the store keeps every event, a monitor that saw a
// gap (or a feed_dropped report) replays from the store by seq (docs/events.md).
// The high-water mark also bounds bursts: a healthy subscriber drops too when more than
// high_water_mark events are published faster than its connection carries them, so size it for
// the largest burst (the default suits thousands of events a second).
//
// One thread only: the feed actor owns the publisher and is its only caller. It is movable, not
// copyable; closing waits at most `linger` to flush queued events.

#include "expected/expected.hpp"
#include "feed/defaults.hpp"
#include "feed/event.hpp"
#include "feed/feed_error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace warpforge::feed {

struct publisher_options {
  std::string endpoint{default_endpoint}; // bind address; tcp://127.0.0.1:* or port 0 = a free port
  bool allow_remote = false;              // permit an address other hosts can reach (0.0.0.0, a NIC)
  int high_water_mark = default_high_water_mark; // events queued per subscriber, > 0 [messages]
  std::chrono::milliseconds linger = default_linger; // flush time on close [ms]
};

class publisher {
public:
  /// Binds an XPUB socket. Fails with bad_endpoint / remote_not_allowed (check_bind_endpoint),
  /// bad_option (high_water_mark <= 0), or socket_error (the port is taken...).
  static expected<publisher, feed_error> bind(const publisher_options& options);

  publisher(publisher&&) noexcept;
  publisher& operator=(publisher&&) noexcept;
  ~publisher();

  /// The endpoint actually bound, with the real port: "tcp://127.0.0.1:41237".
  const std::string& endpoint() const;

  /// Sends two frames, the topic (to_string(e.type)) then encode(e). Never blocks: false when a
  /// matching subscriber's queue is full, and the event counts in dropped(). True also when no
  /// subscriber wants the event. Reads pending subscription messages first.
  bool publish(const event& e);

  std::uint64_t published() const;            // events accepted since bind
  std::uint64_t dropped() const;              // events refused since bind
  std::uint64_t dropped_since_report() const; // events refused since the last take_dropped_report

  /// A feed_dropped event for the drops since the last report, and starts a new count. Detail:
  /// dropped (since the last report), dropped_total, published_total, subscriptions. The caller
  /// numbers it, stores it and publishes it like any other event; call it when
  /// dropped_since_report() > 0 (e.g. once a second), so a monitor learns it missed events.
  event take_dropped_report(std::uint64_t seq, double ts, std::string campaign = {});

  /// Live subscriptions: one per topic prefix per connected subscriber (a subscriber to every
  /// event counts one; one with three prefixes counts three). ZeroMQ tells the XPUB socket about
  /// subscriptions, not about subscribers, so this is what can be counted.
  std::size_t subscription_count();

  /// Waits until subscription_count() >= count: the cure for ZeroMQ's slow joiner (events published
  /// before a subscription arrives are not delivered to it). Used by tests and by
  /// `warpforge run --wait-subscribers`. False when `timeout` passed first, or a signal interrupted
  /// the wait.
  bool wait_for_subscriptions(std::size_t count, std::chrono::milliseconds timeout);

private:
  struct impl;
  explicit publisher(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::feed
