#pragma once
// The feed's receiving end, for `warpforge tail` and tests: a ZeroMQ SUB socket that reads the
// publisher's two-frame messages (topic, JSON) back into events.
//
// A malformed message (wrong frame count, bad JSON, a topic that is not its type) is returned as
// an error naming what was wrong; the message is consumed and the subscriber stays usable.
// A frame larger than max_event_bytes (feed/defaults.hpp) makes ZeroMQ drop the connection
// before the frame is allocated, so a hostile feed cannot exhaust a monitor's memory.
// One thread at a time; movable, not copyable.

#include "foundation/expected/expected.hpp"
#include "feed/defaults.hpp"
#include "feed/event.hpp"
#include "feed/event_json.hpp"
#include "feed/feed_error.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::feed {

struct subscriber_options {
  std::string endpoint;            // the publisher's endpoint, e.g. tcp://127.0.0.1:5757
  std::vector<std::string> topics; // topic prefixes ("branch_" = every branch event); empty = all
  int high_water_mark = default_subscriber_high_water_mark; // receive queue, > 0 [messages]
};

class subscriber {
public:
  /// Connects and subscribes. ZeroMQ connects in the background, so an absent publisher is not
  /// an error; events published before the subscription reaches the publisher are not delivered
  /// (see publisher::wait_for_subscriptions). Fails with bad_endpoint, bad_option, socket_error.
  static expected<subscriber, feed_error> connect(const subscriber_options& options);
  static expected<subscriber, feed_error> connect(std::string endpoint,
                                                  std::vector<std::string> topics = {});

  subscriber(subscriber&&) noexcept;
  subscriber& operator=(subscriber&&) noexcept;
  ~subscriber();

  const std::string& endpoint() const;

  /// The next event; nullopt when none arrived within `timeout`. Errors: bad_message (frames,
  /// topic), the decode errors of event_json.hpp, socket_error (a signal interrupted the wait).
  expected<std::optional<event>, feed_error> receive(std::chrono::milliseconds timeout);

  /// The next event's JSON text exactly as published (for `tail --json`), after the same checks
  /// as receive().
  expected<std::optional<std::string>, feed_error> receive_raw(std::chrono::milliseconds timeout);

  /// The next event and its JSON text, after the same checks as receive().
  expected<std::optional<wire_event>, feed_error> receive_wire(std::chrono::milliseconds timeout);

private:
  struct impl;
  explicit subscriber(std::unique_ptr<impl> state);

  std::unique_ptr<impl> impl_;
};

} // namespace warpforge::feed
