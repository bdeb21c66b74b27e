#include "feed/replay_server.hpp"

#include "feed/endpoint.hpp"
#include "feed/replay_protocol.hpp"
#include "storage/database.hpp"

#include <zmq.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <iterator>
#include <list>
#include <optional>
#include <thread>
#include <vector>

namespace warpforge::feed {
namespace {

using clock = std::chrono::steady_clock;

// How often requests waiting for their `until` look at the store again, and replies a peer's
// pipe refused are offered again.
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

/// One request as the ROUTER socket hands it over: the envelope that routes the reply back (the
/// peer's routing id, then, from a REQ socket, the empty delimiter) and the request's own frames.
struct routed_request {
  std::vector<zmq::message_t> envelope;
  std::vector<zmq::message_t> body;
  std::size_t frames = 0; // every frame of the message, those let go beyond the bound included
};

/// A well-formed request whose `until` the store has not reached yet.
struct waiting_request {
  std::vector<zmq::message_t> envelope;
  replay_request request;
  clock::time_point deadline; // answered with what is stored by then
};

/// What became of one attempt to send a reply.
enum class delivery : std::uint8_t {
  sent,
  peer_full, // ZeroMQ counts replay_reply_high_water_mark replies the peer has not read
  peer_gone, // no such peer any more
};

/// A reply the peer's pipe refused, offered again until it goes or its time is up.
struct unsent_reply {
  std::vector<zmq::message_t> envelope;
  replay_reply reply;
  std::size_t bytes = 0; // of its events
  clock::time_point deadline;
};

std::size_t event_bytes(const replay_reply& reply) {
  std::size_t bytes = 0;
  for (const auto& event : reply.events)
    bytes += event.size();
  return bytes;
}

/// Whether two envelopes route to the same peer (the routing id, their first frame).
bool same_peer(const std::vector<zmq::message_t>& a, const std::vector<zmq::message_t>& b) {
  return !a.empty() && !b.empty() && a.front().to_string_view() == b.front().to_string_view();
}

} // namespace

struct replay_server::impl {
  replay_server_options options;
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::router};
  std::string endpoint;
  std::optional<storage::database> db; // opened on the first request that finds the file
  std::list<waiting_request> waiting;  // at most max_replay_requests_waiting
  std::list<unsent_reply> unsent;      // bounded: max_replay_unsent_replies, ..._per_peer, ..._bytes
  std::size_t unsent_bytes = 0;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> events_served{0};
  std::atomic<std::uint64_t> refused{0};
  std::thread thread;

  /// Stops the thread: the blocked poll() fails with ETERM once the context shuts down.
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

  /// One page from the store: at most the request's limit (cut to max_page) and at most
  /// max_replay_reply_bytes of events (at least one event), so every reply is bounded.
  replay_reply answer(const replay_request& request, const expected<std::uint64_t, std::string>& last) {
    if (!last)
      return refusal(replay_status::unavailable, "store", last.error());
    const auto limit = std::min(request.limit.value_or(options.default_page), options.max_page);
    // One row beyond the page tells whether more remain in range. Both seqs fit: the protocol
    // refuses any above max_replay_seq.
    auto rows = db->events_since(static_cast<std::int64_t>(request.after),
                                 static_cast<std::int64_t>(limit) + 1);
    if (!rows) {
      db.reset();
      return refusal(replay_status::unavailable, "store", storage::to_string(rows.error()));
    }

    replay_reply reply;
    reply.header.after = request.after;
    reply.header.until = request.until;
    reply.header.stored_last = *last;
    std::size_t bytes = 0;
    for (auto& row : *rows) {
      const auto seq = static_cast<std::uint64_t>(row.seq);
      if (request.until && seq > *request.until)
        break;
      if (reply.events.size() == limit ||
          (!reply.events.empty() && bytes + row.json.size() > max_replay_reply_bytes)) {
        reply.header.more = true;
        break;
      }
      if (!reply.header.first)
        reply.header.first = seq;
      reply.header.last = seq;
      bytes += row.json.size();
      reply.events.push_back(std::move(row.json));
    }
    reply.header.count = reply.events.size();
    return reply;
  }

  /// Sends the reply behind `envelope` (copied: a reply the peer's pipe refuses is kept whole to
  /// be offered again). The socket is ZMQ_ROUTER_MANDATORY, so a peer ZeroMQ counts as full or
  /// gone refuses the first frame and nothing of the reply leaves; once it is taken, the rest
  /// goes to the same pipe.
  delivery try_send(std::vector<zmq::message_t>& envelope, const replay_reply& reply) {
    auto flags = [](bool last_frame) {
      return (last_frame ? zmq::send_flags::none : zmq::send_flags::sndmore) | zmq::send_flags::dontwait;
    };
    // Only the routing id can be refused. A refusal may be ZeroMQ's stale count of what the
    // peer read: asking for the socket's events makes it process its commands (a send checks
    // at most once a millisecond), so the second try sees the count as it is.
    auto routed = [&] {
      zmq::message_t routing_id;
      routing_id.copy(envelope.front());
      return socket.send(routing_id, flags(false)).has_value();
    };
    try {
      if (!routed()) {
        (void)socket.get(zmq::sockopt::events);
        if (!routed())
          return delivery::peer_full;
      }
    } catch (const zmq::error_t& error) {
      if (error.num() == EHOSTUNREACH)
        return delivery::peer_gone;
      throw;
    }
    // The rest goes to the pipe that took the routing id. A signal during a send is retried, so
    // the message is never left half-sent for the next reply to run on into.
    auto send_frame = [&](zmq::const_buffer frame, bool last_frame) {
      for (;;) {
        try {
          socket.send(frame, flags(last_frame));
          return;
        } catch (const zmq::error_t& error) {
          if (error.num() != EINTR)
            throw;
        }
      }
    };
    for (std::size_t index = 1; index < envelope.size(); ++index)
      send_frame(zmq::buffer(envelope[index].data(), envelope[index].size()), false);
    const auto header = encode(reply.header);
    send_frame(zmq::buffer(header), reply.events.empty());
    for (std::size_t index = 0; index < reply.events.size(); ++index)
      send_frame(zmq::buffer(reply.events[index]), index + 1 == reply.events.size());
    return delivery::sent;
  }

  /// Answers: sends the reply now, or keeps it to offer again when the peer's pipe refuses it.
  /// This socket learns that its network thread took a peer's replies off their queue only every
  /// other reply (with a mark of 4) and only when it next processes its commands, so a client
  /// that asks again the moment an answer comes can look full when it is not; dropping the reply then lost answers to a client waiting for
  /// nothing else (tests/feed/replay_server_test.cpp). A peer that really does not read loses
  /// the reply after replay_reply_retry; beyond max_replay_unsent_replies kept replies (of which
  /// max_replay_unsent_per_peer of one peer) or max_replay_unsent_bytes of their events the new
  /// one is dropped at once (its request times out; ask again), so one peer that never reads
  /// cannot take the room from the others. A peer with a reply kept gets its next ones behind
  /// it, in order.
  void send(std::vector<zmq::message_t>& envelope, replay_reply reply) {
    ++requests;
    events_served += reply.events.size();
    if (reply.header.status != replay_status::ok)
      ++refused;
    const bool behind_a_kept_one = std::any_of(unsent.begin(), unsent.end(),
                                               [&](const unsent_reply& kept) { return same_peer(kept.envelope, envelope); });
    if (!behind_a_kept_one && try_send(envelope, reply) != delivery::peer_full)
      return;
    const auto bytes = event_bytes(reply);
    const auto of_this_peer = std::count_if(unsent.begin(), unsent.end(),
                                            [&](const unsent_reply& kept) { return same_peer(kept.envelope, envelope); });
    if (unsent.size() >= max_replay_unsent_replies || unsent_bytes + bytes > max_replay_unsent_bytes ||
        static_cast<std::size_t>(of_this_peer) >= max_replay_unsent_per_peer)
      return; // dropped
    unsent_bytes += bytes;
    unsent.push_back(unsent_reply{std::move(envelope), std::move(reply), bytes, clock::now() + replay_reply_retry});
  }

  /// Offers the kept replies again, oldest first: each goes, or is dropped once its peer is gone
  /// or its time is up. A peer's later replies wait while an earlier one is still refused.
  void resend_unsent() {
    const auto now = clock::now();
    std::vector<const std::vector<zmq::message_t>*> still_refused; // the envelopes of those kept
    for (auto it = unsent.begin(); it != unsent.end();) {
      const bool behind = std::any_of(still_refused.begin(), still_refused.end(),
                                      [&](const auto* envelope) { return same_peer(*envelope, it->envelope); });
      const auto outcome = behind ? delivery::peer_full : try_send(it->envelope, it->reply);
      if (outcome != delivery::peer_full || now >= it->deadline || stopping) {
        unsent_bytes -= it->bytes;
        it = unsent.erase(it);
      } else {
        still_refused.push_back(&it->envelope);
        ++it;
      }
    }
  }

  /// Reads one waiting message, if any: its envelope (the frames up to and including the first
  /// empty one; the routing id alone when there is none) and at most max_replay_request_frames
  /// frames in all. Every frame of it is read (ZeroMQ delivers a message whole), the extra ones
  /// let go.
  std::optional<routed_request> read_request() {
    routed_request in;
    bool in_envelope = true;
    for (bool more = true; more;) {
      zmq::message_t frame;
      if (!socket.recv(frame, zmq::recv_flags::dontwait))
        break;
      more = frame.more();
      ++in.frames;
      if (in.frames > max_replay_request_frames)
        continue;
      const bool delimiter = frame.size() == 0;
      if (in_envelope)
        in.envelope.push_back(std::move(frame));
      else
        in.body.push_back(std::move(frame));
      if (delimiter)
        in_envelope = false;
    }
    if (in.frames == 0)
      return std::nullopt;
    if (in_envelope && in.envelope.size() > 1) { // no delimiter: the routing id, then the body
      std::move(in.envelope.begin() + 1, in.envelope.end(), std::back_inserter(in.body));
      in.envelope.resize(1);
    }
    return in;
  }

  /// Answers a request now, or parks it while the store catches up with its `until`.
  void take(routed_request in) {
    if (in.frames > max_replay_request_frames)
      return; // its envelope may be cut: no reply could find its way back
    if (in.body.size() != 1) {
      send(in.envelope, refusal(replay_status::bad_request, "frames",
                                "expected 1 (the JSON request), got " + std::to_string(in.body.size())));
      return;
    }
    auto request = decode_replay_request(in.body.front().to_string_view());
    if (!request) {
      send(in.envelope,
           refusal(replay_status::bad_request, request.error().place, request.error().message));
      return;
    }
    auto last = stored_last();
    // The store lags the PUB socket: a monitor that saw seq `until` live may ask before the
    // store has written it. Wait a little for it rather than answer short, but never on this
    // thread's time: the request waits in a bounded list while others are answered.
    if (last && request->until && *last < *request->until &&
        waiting.size() < max_replay_requests_waiting) {
      waiting.push_back(
        waiting_request{std::move(in.envelope), *request, clock::now() + options.catch_up});
      return;
    }
    send(in.envelope, answer(*request, last));
  }

  /// Answers the waiting requests whose `until` is stored now, or whose catch-up is over.
  void answer_waiting() {
    if (waiting.empty())
      return;
    auto last = stored_last();
    const auto now = clock::now();
    for (auto it = waiting.begin(); it != waiting.end();) {
      const bool caught_up = !last || *last >= *it->request.until;
      if (caught_up || now >= it->deadline || stopping) {
        send(it->envelope, answer(it->request, last));
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
  }

  /// The server's thread: reads the requests that came, answers or parks each, then looks at
  /// the parked ones, until the context shuts down.
  void serve() {
    for (;;) {
      try {
        zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
        const auto wait = waiting.empty() && unsent.empty() ? std::chrono::milliseconds{-1} : catch_up_poll;
        zmq::poll(&item, 1, wait);
        // Bounded per round, so parked requests are looked at even under a stream of new ones.
        for (int read = 0; read < replay_request_high_water_mark; ++read) {
          auto in = read_request();
          if (!in)
            break;
          take(std::move(*in));
        }
        answer_waiting();
        resend_unsent();
      } catch (const zmq::error_t& error) {
        if (error.num() == ETERM)
          break;
        // EINTR (a signal): go on with the next round.
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
    // What a peer can make the server hold (feed/defaults.hpp): a frame beyond a request
    // disconnects it before it is allocated; few requests and replies queue per peer.
    state->socket.set(zmq::sockopt::maxmsgsize, max_replay_request_bytes);
    state->socket.set(zmq::sockopt::rcvhwm, replay_request_high_water_mark);
    state->socket.set(zmq::sockopt::sndhwm, replay_reply_high_water_mark);
    state->socket.set(zmq::sockopt::router_mandatory, true); // refused, not dropped: send()
    if (address->ipv6)
      state->socket.set(zmq::sockopt::ipv6, 1);
    state->socket.bind(bind_text(*address));
    state->endpoint = state->socket.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& error) {
    const auto code = error.num() == EADDRINUSE ? feed_errc::address_in_use : feed_errc::socket_error;
    return fail(code, "bind", "'" + options.endpoint + "': " + error.what());
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
