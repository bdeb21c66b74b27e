#include "feed/publisher.hpp"

#include "feed/endpoint.hpp"
#include "feed/event_json.hpp"

#include <zmq.hpp>

#include <cerrno>
#include <stdexcept>

namespace warpforge::feed {
namespace {

// First byte of a subscription message on an XPUB socket (ZeroMQ RFC 29/PUBSUB).
constexpr unsigned char unsubscribe_marker = 0;
constexpr unsigned char subscribe_marker = 1;

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

} // namespace

struct publisher::impl {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::xpub};
  std::string endpoint;
  std::uint64_t published = 0;
  std::uint64_t dropped = 0;
  std::uint64_t dropped_at_last_report = 0;
  std::size_t subscriptions = 0;

  /// Reads one subscription message; false when none is waiting.
  bool read_subscription() {
    zmq::message_t message;
    if (!socket.recv(message, zmq::recv_flags::dontwait))
      return false;
    if (message.size() > 0) {
      auto marker = *message.data<unsigned char>();
      if (marker == subscribe_marker)
        ++subscriptions;
      else if (marker == unsubscribe_marker && subscriptions > 0)
        --subscriptions;
    }
    return true;
  }

  /// Reads the waiting subscription messages, so none pile up in the socket; at most
  /// max_subscriptions_read_per_call, so a peer that floods subscriptions cannot hold the caller.
  void drain() {
    for (std::size_t read = 0; read < max_subscriptions_read_per_call && read_subscription(); ++read) {
    }
  }
};

publisher::publisher(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
publisher::publisher(publisher&&) noexcept = default;
publisher& publisher::operator=(publisher&&) noexcept = default;
publisher::~publisher() = default;

expected<publisher, feed_error> publisher::bind(const publisher_options& options) {
  auto address = check_bind_endpoint(options.endpoint, options.allow_remote);
  if (!address)
    return unexpected{address.error()};
  if (options.high_water_mark <= 0)
    return fail(feed_errc::bad_option, "high_water_mark",
                "must be > 0 (0 would let a stalled subscriber grow memory without bound), got " +
                    std::to_string(options.high_water_mark));

  auto state = std::make_unique<impl>();
  try {
    state->socket.set(zmq::sockopt::sndhwm, options.high_water_mark);
    state->socket.set(zmq::sockopt::linger, static_cast<int>(options.linger.count()));
    // A subscriber writes only subscriptions: a frame larger than one disconnects it before
    // ZeroMQ allocates it, and only a few may wait to be read.
    state->socket.set(zmq::sockopt::maxmsgsize, max_subscription_bytes);
    state->socket.set(zmq::sockopt::rcvhwm, subscription_high_water_mark);
    // No ZMQ_XPUB_NODROP: with it one full queue refuses the event to every subscriber. Without
    // it ZeroMQ drops only for the subscriber whose queue is full (see publisher.hpp).
    // Every subscribe and unsubscribe reaches us, duplicates included, so the count stays right.
    state->socket.set(zmq::sockopt::xpub_verboser, 1);
    if (address->ipv6)
      state->socket.set(zmq::sockopt::ipv6, 1);
    state->socket.bind(bind_text(*address));
    state->endpoint = state->socket.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& error) {
    const auto code = error.num() == EADDRINUSE ? feed_errc::address_in_use : feed_errc::socket_error;
    return fail(code, "bind", "'" + options.endpoint + "': " + error.what());
  }
  return publisher{std::move(state)};
}

const std::string& publisher::endpoint() const {
  return impl_->endpoint;
}

bool publisher::publish(const event& e) {
  impl_->drain();
  auto topic = to_string(e.type);
  auto body = encode(e);
  // Without XPUB_NODROP ZeroMQ accepts every message and drops it per full subscriber queue, so
  // a refusal here means the socket itself could not take it (it is counted all the same).
  if (!impl_->socket.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
    ++impl_->dropped;
    return false;
  }
  // Once the first frame is accepted the rest of the message is too: ZeroMQ counts the high-water
  // mark in whole messages. A refusal here would leave half a message in the socket.
  if (!impl_->socket.send(zmq::buffer(body), zmq::send_flags::dontwait))
    throw std::logic_error("feed::publisher: ZeroMQ took the topic frame but refused the body");
  ++impl_->published;
  return true;
}

std::uint64_t publisher::published() const {
  return impl_->published;
}

std::uint64_t publisher::dropped() const {
  return impl_->dropped;
}

std::uint64_t publisher::dropped_since_report() const {
  return impl_->dropped - impl_->dropped_at_last_report;
}

event publisher::take_dropped_report(std::uint64_t seq, double ts, std::string campaign) {
  impl_->drain();
  event report;
  report.seq = seq;
  report.ts = ts;
  report.type = event_type::feed_dropped;
  report.campaign = std::move(campaign);
  report.detail_json = detail{}
                         .add("dropped", dropped_since_report())
                         .add("dropped_total", impl_->dropped)
                         .add("published_total", impl_->published)
                         .add("subscriptions", impl_->subscriptions)
                         .json();
  impl_->dropped_at_last_report = impl_->dropped;
  return report;
}

std::size_t publisher::subscription_count() {
  impl_->drain();
  return impl_->subscriptions;
}

bool publisher::wait_for_subscriptions(std::size_t count, std::chrono::milliseconds timeout) {
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + timeout;
  impl_->drain();
  while (impl_->subscriptions < count) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    if (left <= std::chrono::milliseconds::zero())
      return false;
    zmq::pollitem_t item{impl_->socket.handle(), 0, ZMQ_POLLIN, 0};
    try {
      zmq::poll(&item, 1, left);
    } catch (const zmq::error_t& error) {
      if (error.num() == EINTR)
        return false;
      throw;
    }
    impl_->drain();
  }
  return true;
}

} // namespace warpforge::feed
