#pragma once
// The feed's sending end: every event, as JSON, on a ZeroMQ XPUB socket, topic = event type.
//
// publish() never blocks the pipeline, and a slow subscriber costs only itself: every send is
// ZMQ_DONTWAIT, and each subscriber has its own queue of high_water_mark events (plus its own
// receive queue and the kernel's TCP buffers). When one subscriber's queue is full, ZeroMQ drops
// the event *for that subscriber only*; every other subscriber still gets it, heartbeats included.
// (ZMQ_XPUB_NODROP is not set: with it, one stalled subscriber made ZeroMQ refuse every event to
// every subscriber, so a monitor that stopped reading blinded all the others.) ZeroMQ does not
// say which subscriber lost what, so these drops are not counted here: a monitor detects its own
// gap by seq (a later event's seq, or a heartbeat's) and fills it from the replay endpoint; the
// store keeps every event (docs/events.md). The high-water mark also bounds bursts: a subscriber
// loses events when more than high_water_mark are published faster than its connection carries
// them, so size it for the largest burst (the default suits thousands of events a second).
//
// What a subscriber can make the publisher hold is bounded (feed/defaults.hpp): a subscription
// frame over max_subscription_bytes disconnects it (ZMQ_MAXMSGSIZE, checked before the frame is
// allocated), at most subscription_high_water_mark of its frames wait to be read, and each call
// reads at most max_subscriptions_read_per_call of them.
//
// One thread only: the feed actor owns the publisher and is its only caller. It is movable, not
// copyable; closing waits at most `linger` to flush queued events.

#include "foundation/expected/expected.hpp"
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

  /// Sends two frames, the topic (to_string(e.type)) then encode(e). Never blocks. True when the
  /// socket took the event: also when no subscriber wants it, and when a full subscriber queue
  /// made ZeroMQ drop it for that subscriber (the others still get it). False only when the
  /// socket refused it for all, and the event counts in dropped(). Reads pending subscription
  /// messages first.
  bool publish(const event& e);

  std::uint64_t published() const;            // events the socket took since bind
  std::uint64_t dropped() const;              // events the socket refused since bind (not the
                                              // per-subscriber drops, which ZeroMQ does not tell)
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
