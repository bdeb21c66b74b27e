#include "feed/replay_server.hpp"

#include "feed/endpoint.hpp"
#include "feed/replay_protocol.hpp"
#include "storage/database.hpp"

#include <zmq.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <optional>
#include <thread>
#include <vector>

namespace warpforge::feed {
namespace {

// How often a request with `until` looks at the store again while it catches up.
constexpr std::chrono::milliseconds catch_up_poll{20};

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

/// A reply: the header, then the events' JSON.
struct replay_reply {
  replay_header header;
  std::vector<std::string> events;
};

replay_reply refusal(replay_status status, std::string place, std::string message) {
  replay_reply reply;
  reply.header.status = status;
  reply.header.place = std::move(place);
  reply.header.message = std::move(message);
  return reply;
}

} // namespace

struct replay_server::impl {
  replay_server_options options;
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::rep};
  std::string endpoint;
  std::optional<storage::database> db; // opened on the first request that finds the file
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> events_served{0};
  std::atomic<std::uint64_t> refused{0};
  std::thread thread;

  /// Stops the thread: the blocked recv() returns ETERM once the context shuts down.
  ~impl() {
    stopping = true;
    context.shutdown();
    if (thread.joinable())
      thread.join();
  }

  /// The newest stored seq (0 = none), opening the database when it is not open yet.
  expected<std::uint64_t, std::string> stored_last() {
    if (!db) {
      auto opened = storage::database::open_read_only(options.database);
      if (!opened)
        return unexpected{storage::to_string(opened.error())};
      db.emplace(std::move(*opened));
    }
    auto next = db->next_event_seq();
    if (!next) {
      db.reset(); // reopen next time: the file may have been replaced or repaired
      return unexpected{storage::to_string(next.error())};
    }
    return static_cast<std::uint64_t>(*next - 1);
  }

  replay_reply answer(std::string_view text) {
    auto request = decode_replay_request(text);
    if (!request)
      return refusal(replay_status::bad_request, request.error().place, request.error().message);
    const auto limit = std::min(request->limit.value_or(options.default_page), options.max_page);

    auto last = stored_last();
    // The store lags the PUB socket: a monitor that saw seq `until` live may ask before the
    // store has written it. Wait a little for it rather than answer short.
    const auto deadline = std::chrono::steady_clock::now() + options.catch_up;
    while (last && request->until && *last < *request->until && !stopping &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(catch_up_poll);
      last = stored_last();
    }
    if (!last)
      return refusal(replay_status::unavailable, "store", last.error());

    // One row beyond the page tells whether more remain in range.
    auto rows = db->events_since(static_cast<std::int64_t>(request->after),
                                 static_cast<std::int64_t>(limit) + 1);
    if (!rows) {
      db.reset();
      return refusal(replay_status::unavailable, "store", storage::to_string(rows.error()));
    }
    auto in_range = [&](const storage::event_row& row) {
      return !request->until || static_cast<std::uint64_t>(row.seq) <= *request->until;
    };

    replay_reply reply;
    reply.header.after = request->after;
    reply.header.until = request->until;
    reply.header.stored_last = *last;
    for (const auto& row : *rows) {
      if (!in_range(row))
        break;
      if (reply.events.size() == limit) {
        reply.header.more = true;
        break;
      }
      const auto seq = static_cast<std::uint64_t>(row.seq);
      if (!reply.header.first)
        reply.header.first = seq;
      reply.header.last = seq;
      reply.events.push_back(row.json);
    }
    reply.header.count = reply.events.size();
    return reply;
  }

  /// Sends the reply's frames (throws zmq::error_t ETERM when the context shuts down).
  void send(const replay_reply& reply) {
    const auto header = encode(reply.header);
    auto more = [&](bool last_frame) {
      return last_frame ? zmq::send_flags::none : zmq::send_flags::sndmore;
    };
    socket.send(zmq::buffer(header), more(reply.events.empty()));
    for (std::size_t index = 0; index < reply.events.size(); ++index)
      socket.send(zmq::buffer(reply.events[index]), more(index + 1 == reply.events.size()));
  }

  /// The server's thread: one request, one reply, until the context shuts down.
  void serve() {
    for (;;) {
      try {
        std::vector<zmq::message_t> frames;
        do {
          zmq::message_t frame;
          if (!socket.recv(frame))
            break;
          frames.push_back(std::move(frame));
        } while (frames.back().more());
        if (frames.empty())
          continue;
        auto reply = frames.size() == 1
                       ? answer(frames.front().to_string_view())
                       : refusal(replay_status::bad_request, "frames",
                                 "expected 1 (the JSON request), got " +
                                   std::to_string(frames.size()));
        ++requests;
        events_served += reply.events.size();
        if (reply.header.status != replay_status::ok)
          ++refused;
        send(reply);
      } catch (const zmq::error_t& error) {
        if (error.num() == ETERM)
          break;
        // EINTR (a signal) or a peer that vanished mid-reply: REP resets, the next request comes.
      }
    }
    socket.close();
  }
};

replay_server::replay_server(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
replay_server::replay_server(replay_server&&) noexcept = default;
replay_server& replay_server::operator=(replay_server&&) noexcept = default;
replay_server::~replay_server() = default;

expected<replay_server, feed_error> replay_server::start(const replay_server_options& options) {
  auto address = check_bind_endpoint(options.endpoint, options.allow_remote);
  if (!address)
    return unexpected{address.error()};
  if (options.default_page == 0 || options.max_page == 0 || options.default_page > options.max_page)
    return fail(feed_errc::bad_option, "page",
                "need 1 <= default_page <= max_page, got " + std::to_string(options.default_page) +
                  " and " + std::to_string(options.max_page));

  auto state = std::make_unique<impl>();
  state->options = options;
  try {
    // Closing never waits for a reply to a monitor that went away.
    state->socket.set(zmq::sockopt::linger, 0);
    if (address->ipv6)
      state->socket.set(zmq::sockopt::ipv6, 1);
    state->socket.bind(bind_text(*address));
    state->endpoint = state->socket.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& error) {
    return fail(feed_errc::socket_error, "bind", "'" + options.endpoint + "': " + error.what());
  }
  state->thread = std::thread{[raw = state.get()] { raw->serve(); }};
  return replay_server{std::move(state)};
}

const std::string& replay_server::endpoint() const {
  return impl_->endpoint;
}

replay_counters replay_server::counters() const {
  return replay_counters{impl_->requests, impl_->events_served, impl_->refused};
}

} // namespace warpforge::feed
