#include "feed/replay_client.hpp"

#include "feed/defaults.hpp"
#include "feed/endpoint.hpp"

#include <zmq.hpp>

#include <optional>

namespace warpforge::feed {
namespace {

// A reply is a header and at most max_replay_page events (feed/defaults.hpp).
constexpr std::size_t max_reply_frames = std::size_t{max_replay_page} + 1;

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

} // namespace

struct replay_client::impl {
  zmq::context_t context{1};
  std::optional<zmq::socket_t> socket;
  std::string endpoint;
  bool ipv6 = false;

  /// A fresh REQ socket, connected.
  void open() {
    socket.emplace(context, zmq::socket_type::req);
    // Closing never waits: an unanswered request is abandoned with its socket.
    socket->set(zmq::sockopt::linger, 0);
    // A frame beyond any event comes from a broken or hostile server: refused before allocation.
    socket->set(zmq::sockopt::maxmsgsize, max_event_bytes);
    if (ipv6)
      socket->set(zmq::sockopt::ipv6, 1);
    socket->connect(endpoint);
  }

  /// Waits for the reply's frames; nullopt on timeout. Keeps at most max_reply_frames of them
  /// (reading the rest and counting them in `discarded`), so a hostile server's endless reply
  /// cannot grow this process.
  std::optional<std::vector<zmq::message_t>> read_reply(std::chrono::milliseconds timeout,
                                                        std::size_t& discarded) {
    zmq::pollitem_t item{socket->handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, timeout) == 0)
      return std::nullopt;
    std::vector<zmq::message_t> frames;
    discarded = 0;
    for (bool more = true; more;) {
      zmq::message_t frame;
      // The frames of one message arrive together: once the first is here, the rest are too.
      if (!socket->recv(frame, zmq::recv_flags::dontwait))
        break;
      more = frame.more();
      if (frames.size() < max_reply_frames)
        frames.push_back(std::move(frame));
      else
        ++discarded;
    }
    return frames;
  }
};

replay_client::replay_client(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
replay_client::replay_client(replay_client&&) noexcept = default;
replay_client& replay_client::operator=(replay_client&&) noexcept = default;
replay_client::~replay_client() = default;

expected<replay_client, feed_error> replay_client::connect(std::string endpoint) {
  auto address = parse_endpoint(endpoint);
  if (!address)
    return unexpected{address.error()};
  auto state = std::make_unique<impl>();
  state->endpoint = std::move(endpoint);
  state->ipv6 = address->ipv6;
  try {
    state->open();
  } catch (const zmq::error_t& error) {
    return fail(feed_errc::socket_error, "connect", "'" + state->endpoint + "': " + error.what());
  }
  return replay_client{std::move(state)};
}

const std::string& replay_client::endpoint() const {
  return impl_->endpoint;
}

expected<replay_page, feed_error> replay_client::fetch(const replay_request& request,
                                                       std::chrono::milliseconds timeout) {
  std::optional<std::vector<zmq::message_t>> frames;
  std::size_t discarded = 0;
  try {
    const auto text = encode(request);
    impl_->socket->send(zmq::buffer(text), zmq::send_flags::none);
    frames = impl_->read_reply(timeout, discarded);
    if (!frames) {
      impl_->open(); // lazy pirate: this socket still waits for a reply that may never come
      return fail(feed_errc::no_reply, "replay",
                  impl_->endpoint + " did not answer within " + std::to_string(timeout.count()) +
                    " ms");
    }
  } catch (const zmq::error_t& error) {
    impl_->open();
    return fail(feed_errc::socket_error, "replay", impl_->endpoint + ": " + error.what());
  }
  if (frames->empty())
    return fail(feed_errc::bad_message, "frames", "an empty reply");
  if (discarded > 0)
    return fail(feed_errc::bad_message, "frames",
                "a reply of " + std::to_string(frames->size() + discarded) + " frames, above the " +
                  std::to_string(max_reply_frames) + " a reply may have");

  auto header = decode_replay_header(frames->front().to_string_view());
  if (!header)
    return unexpected{header.error()};
  if (header->status != replay_status::ok)
    return fail(feed_errc::replay_refused, header->place,
                std::string{to_string(header->status)} + ": " + header->message);
  if (frames->size() != header->count + 1)
    return fail(feed_errc::bad_message, "frames",
                "the header announces " + std::to_string(header->count) + " events, " +
                  std::to_string(frames->size() - 1) + " came");

  replay_page page{std::move(*header), {}};
  page.events.reserve(frames->size() - 1);
  for (std::size_t index = 1; index < frames->size(); ++index) {
    std::string json = (*frames)[index].to_string();
    auto decoded = decode(json);
    if (!decoded)
      return unexpected{decoded.error()};
    page.events.push_back(wire_event{std::move(*decoded), std::move(json)});
  }
  return page;
}

} // namespace warpforge::feed
