#include "feed/subscriber.hpp"

#include "feed/endpoint.hpp"
#include "feed/event_json.hpp"

#include <zmq.hpp>

namespace warpforge::feed {
namespace {

constexpr std::size_t frames_per_message = 2; // topic, JSON

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

} // namespace

struct subscriber::impl {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::sub};
  std::string endpoint;

  /// Waits for one message and reads all of its frames; nullopt on timeout.
  expected<std::optional<std::vector<zmq::message_t>>, feed_error> read_frames(
    std::chrono::milliseconds timeout) {
    std::vector<zmq::message_t> frames;
    try {
      zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, timeout) == 0)
        return std::optional<std::vector<zmq::message_t>>{};
      do {
        zmq::message_t frame;
        // Frames of one message arrive together: once the first is here, the rest are too.
        if (!socket.recv(frame, zmq::recv_flags::dontwait))
          return std::optional<std::vector<zmq::message_t>>{};
        frames.push_back(std::move(frame));
      } while (frames.back().more());
    } catch (const zmq::error_t& error) {
      return fail(feed_errc::socket_error, "receive", error.what());
    }
    return std::optional{std::move(frames)};
  }

  expected<std::optional<wire_event>, feed_error> read_message(
    std::chrono::milliseconds timeout) {
    auto frames = read_frames(timeout);
    if (!frames)
      return unexpected{frames.error()};
    if (!*frames)
      return std::optional<wire_event>{};
    auto& parts = **frames;
    if (parts.size() != frames_per_message)
      return fail(feed_errc::bad_message, "frames",
                  "expected 2 (topic, JSON), got " + std::to_string(parts.size()));
    auto topic = parts[0].to_string_view();
    std::string json = parts[1].to_string();
    auto decoded = decode(json);
    if (!decoded)
      return unexpected{decoded.error()};
    if (topic != to_string(decoded->type))
      return fail(feed_errc::bad_message, "topic",
                  "'" + std::string{topic} + "' differs from the type '" +
                      std::string{to_string(decoded->type)} + "'");
    return std::optional{wire_event{std::move(*decoded), std::move(json)}};
  }
};

subscriber::subscriber(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
subscriber::subscriber(subscriber&&) noexcept = default;
subscriber& subscriber::operator=(subscriber&&) noexcept = default;
subscriber::~subscriber() = default;

expected<subscriber, feed_error> subscriber::connect(const subscriber_options& options) {
  auto address = parse_endpoint(options.endpoint);
  if (!address)
    return unexpected{address.error()};
  if (options.high_water_mark <= 0)
    return fail(feed_errc::bad_option, "high_water_mark",
                "must be > 0, got " + std::to_string(options.high_water_mark));

  auto state = std::make_unique<impl>();
  state->endpoint = options.endpoint;
  try {
    state->socket.set(zmq::sockopt::rcvhwm, options.high_water_mark);
    // A frame beyond any event comes from a broken or hostile peer: ZeroMQ disconnects it before
    // allocating the frame (and reconnects, as it does after any lost connection).
    state->socket.set(zmq::sockopt::maxmsgsize, max_event_bytes);
    // Closing a subscriber never waits: it only ever sends subscriptions.
    state->socket.set(zmq::sockopt::linger, 0);
    if (address->ipv6)
      state->socket.set(zmq::sockopt::ipv6, 1);
    if (options.topics.empty())
      state->socket.set(zmq::sockopt::subscribe, "");
    for (const auto& topic : options.topics)
      state->socket.set(zmq::sockopt::subscribe, topic);
    state->socket.connect(options.endpoint);
  } catch (const zmq::error_t& error) {
    return fail(feed_errc::socket_error, "connect", "'" + options.endpoint + "': " + error.what());
  }
  return subscriber{std::move(state)};
}

expected<subscriber, feed_error> subscriber::connect(std::string endpoint,
                                                     std::vector<std::string> topics) {
  return connect(subscriber_options{std::move(endpoint), std::move(topics)});
}

const std::string& subscriber::endpoint() const {
  return impl_->endpoint;
}

expected<std::optional<event>, feed_error> subscriber::receive(std::chrono::milliseconds timeout) {
  auto message = impl_->read_message(timeout);
  if (!message)
    return unexpected{message.error()};
  if (!*message)
    return std::optional<event>{};
  return std::optional{std::move((*message)->decoded)};
}

expected<std::optional<std::string>, feed_error> subscriber::receive_raw(
  std::chrono::milliseconds timeout) {
  auto message = impl_->read_message(timeout);
  if (!message)
    return unexpected{message.error()};
  if (!*message)
    return std::optional<std::string>{};
  return std::optional{std::move((*message)->json)};
}

expected<std::optional<wire_event>, feed_error> subscriber::receive_wire(
  std::chrono::milliseconds timeout) {
  return impl_->read_message(timeout);
}

} // namespace warpforge::feed
