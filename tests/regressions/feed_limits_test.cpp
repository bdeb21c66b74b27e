// Issue 22, items 1, 4 and 15: what a peer of the feed can do to a running coordinator, through
// the real `warpforge run` on the stand-in GPUs and real sockets. A peer that announces an
// oversized frame (a subscription, a replay request) is disconnected before the frame is
// allocated and the coordinator's memory stays flat; a subscriber that never reads loses only its
// own events while another keeps receiving events and heartbeats; a replay seq above 2^63 - 1 is
// refused, and a request waiting for a far `until` does not hold the replay thread.

#include "feed/defaults.hpp"
#include "feed/follower.hpp"
#include "feed/replay_client.hpp"
#include "tests/apps/cli/campaign_fixture.hpp"

#include <simdjson.h>
#include <zmq.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace feed = warpforge::feed;

/// How long a step waits for the campaign (its endpoint file, its events, its end).
constexpr auto campaign_deadline = 120s;
/// How much the coordinator's resident memory may grow while a peer attacks it [bytes]: the
/// campaign's own growth over a few seconds, far below what the attacks cost before the fix
/// (a 32 MiB subscription grew it by 3 GB).
constexpr std::int64_t allowed_growth_bytes = 96ll * 1024 * 1024;

/// The resident memory of process `pid` [bytes] (VmRSS in /proc/<pid>/status); -1 when unknown.
std::int64_t resident_bytes(pid_t pid) {
  std::ifstream status{"/proc/" + std::to_string(pid) + "/status"};
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stoll(line.substr(6)) * 1024; // "VmRSS:   83012 kB"
  return -1;
}

/// A peer that speaks ZMTP 3.0 (NULL security) over a plain TCP socket, as a hostile or broken
/// subscriber would: it can announce a frame of any size, and it can stop reading. Its TCP
/// options make its connection's buffers small, so a stall fills them within a few hundred events.
class raw_zmtp_peer {
public:
  struct tcp_options {
    int receive_buffer = 0; // SO_RCVBUF [bytes]; 0 = the kernel's default
    int max_segment = 0;    // TCP_MAXSEG [bytes], which also sizes the sender's buffer; 0 = default
  };

  raw_zmtp_peer(const std::string& endpoint, tcp_options options) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    // A send the coordinator neither reads nor refuses fails after this, rather than hang.
    const timeval send_timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    if (options.receive_buffer > 0)
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &options.receive_buffer, sizeof options.receive_buffer);
    if (options.max_segment > 0)
      ::setsockopt(fd_, IPPROTO_TCP, TCP_MAXSEG, &options.max_segment, sizeof options.max_segment);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(endpoint.substr(endpoint.rfind(':') + 1))));
    ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~raw_zmtp_peer() { ::close(fd_); }
  raw_zmtp_peer(const raw_zmtp_peer&) = delete;
  raw_zmtp_peer& operator=(const raw_zmtp_peer&) = delete;

  /// Greetings and READY commands both ways, as a socket of `socket_type` ("SUB").
  bool handshake(const std::string& socket_type) {
    std::array<unsigned char, 64> greeting{};
    greeting[0] = 0xFF;
    greeting[9] = 0x7F;
    greeting[10] = 3; // ZMTP 3.0
    std::memcpy(&greeting[12], "NULL", 4);
    if (!connected_ || !write_all(greeting.data(), greeting.size()))
      return false;
    std::array<unsigned char, 64> theirs{};
    if (!read_all(theirs.data(), theirs.size()))
      return false;
    std::string ready = "\x05READY\x0bSocket-Type";
    ready += std::string{"\0\0\0", 3} + static_cast<char>(socket_type.size()) + socket_type;
    if (!send_frame(ready, 0x04))
      return false;
    auto command = read_frame();
    return command && command->rfind("\x05READY", 0) == 0;
  }

  /// One frame of `body`; flags 0x04 = a command, 0x01 = more frames follow.
  bool send_frame(std::string_view body, unsigned char flags = 0) {
    return send_header(body.size(), flags) && write_all(body.data(), body.size());
  }

  /// The header of a frame of `size` bytes (its body is for write_all): a peer can announce any
  /// size, whatever it then sends.
  bool send_header(std::uint64_t size, unsigned char flags = 0) {
    if (size <= 255) {
      const unsigned char header[] = {flags, static_cast<unsigned char>(size)};
      return write_all(header, sizeof header);
    }
    std::array<unsigned char, 9> header{static_cast<unsigned char>(flags | 0x02)};
    for (int byte = 0; byte < 8; ++byte)
      header[static_cast<std::size_t>(8 - byte)] = static_cast<unsigned char>(size >> (8 * byte));
    return write_all(header.data(), header.size());
  }

  bool write_all(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const auto sent = ::send(fd_, bytes, size, MSG_NOSIGNAL);
      if (sent <= 0)
        return false;
      bytes += sent;
      size -= static_cast<std::size_t>(sent);
    }
    return true;
  }

  /// The next frame's body; nullopt at the end of the connection or after `timeout` of silence.
  std::optional<std::string> read_frame(std::chrono::milliseconds timeout = 10s) {
    std::array<unsigned char, 2> start{};
    if (!read_all(start.data(), start.size(), timeout))
      return std::nullopt;
    std::uint64_t size = start[1];
    if (start[0] & 0x02) {
      std::array<unsigned char, 7> rest{};
      if (!read_all(rest.data(), rest.size(), timeout))
        return std::nullopt;
      for (auto byte : rest)
        size = (size << 8) | byte;
    }
    if (size > feed::max_event_bytes)
      return std::nullopt;
    std::string body(size, '\0');
    if (!read_all(body.data(), body.size(), timeout))
      return std::nullopt;
    more_ = (start[0] & 0x01) != 0;
    return body;
  }
  bool more() const { return more_; }

  /// Whether the other end closed the connection within `timeout` (what ZeroMQ does to a peer
  /// that breaks a limit).
  bool closed_by_peer_within(std::chrono::milliseconds timeout) {
    char byte = 0;
    for (auto deadline = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < deadline;) {
      pollfd item{fd_, POLLIN, 0};
      if (::poll(&item, 1, 50) == 1) {
        const auto got = ::recv(fd_, &byte, 1, 0);
        if (got <= 0)
          return true;
      }
    }
    return false;
  }

private:
  bool read_all(void* data, std::size_t size, std::chrono::milliseconds timeout = 10s) {
    auto* bytes = static_cast<char*>(data);
    while (size > 0) {
      pollfd item{fd_, POLLIN, 0};
      if (::poll(&item, 1, static_cast<int>(timeout.count())) != 1)
        return false;
      const auto got = ::recv(fd_, bytes, size, 0);
      if (got <= 0)
        return false;
      bytes += got;
      size -= static_cast<std::size_t>(got);
    }
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  bool more_ = false;
};

class FeedLimits : public campaign_fixture {
protected:
  /// Starts a campaign of `iterations` on the stand-in GPUs, each candidate taking `delay_ms`,
  /// with the examples named in `more_jobs` as further jobs and `feed_lines` added to its [feed]
  /// table; waits for its feed to be bound.
  pid_t start_campaign(std::uint32_t iterations, int delay_ms, const std::string& feed_lines = {},
                       const std::vector<std::string>& more_jobs = {}) {
    const auto spec = write_campaign(iterations);
    std::stringstream text;
    text << std::ifstream{spec}.rdbuf();
    auto toml = text.str();
    // Every iteration runs: no job stops early for want of improvement.
    toml.replace(toml.find("patience = 10"), 13, "patience = " + std::to_string(iterations));
    std::string jobs;
    for (const auto& example : more_jobs)
      jobs += "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/" + example + "/problem.toml\"\n";
    toml.insert(toml.find("[budget]"), jobs);
    std::ofstream{spec, std::ios::trunc} << toml << feed_lines;
    const pid_t campaign = start({"run", spec.string()}, delay_ms);
    feed_endpoint = endpoint_file("feed.endpoint");
    replay_endpoint = endpoint_file("replay.endpoint");
    return campaign;
  }

  /// The endpoint the campaign wrote to its run directory's `name`; empty when it did not.
  std::string endpoint_file(const char* name) {
    for (auto deadline = std::chrono::steady_clock::now() + campaign_deadline;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(20ms)) {
      if (run_dir().empty())
        continue;
      std::ifstream in{run_dir() / name};
      std::string endpoint;
      if (in >> endpoint)
        return endpoint;
    }
    return {};
  }

  /// The campaign ends well, and its last event is stored.
  void expect_finished_and_stored(pid_t campaign) {
    EXPECT_EQ(wait_exit_within(campaign, campaign_deadline), 0) << stderr_text();
    EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'campaign_finished'"), 1) << stderr_text();
    EXPECT_EQ(count("SELECT count(*) FROM events"), count("SELECT max(seq) FROM events"))
      << "every seq from 1 stored";
  }

  std::string feed_endpoint;
  std::string replay_endpoint;
};

TEST_F(FeedLimits, OversizedSubscriptionsDisconnectThePeerAndTheCoordinatorsMemoryStaysFlat) {
  constexpr std::size_t attackers = 4;
  constexpr std::uint64_t subscription_bytes = 32ull * 1024 * 1024; // what grew it by 3 GB
  const pid_t campaign = start_campaign(3, 400);
  ASSERT_FALSE(feed_endpoint.empty()) << stderr_text();
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events WHERE type = 'branch_measured'", 1)) << stderr_text();
  const auto before = resident_bytes(campaign);
  ASSERT_GT(before, 0);
  const auto events_before = count("SELECT count(*) FROM events");

  // Each announces a 32 MiB subscription and sends it: ZeroMQ reads the size, is over
  // max_subscription_bytes, and closes the connection without reading the body.
  const std::string chunk(1024 * 1024, 'a');
  std::int64_t peak = before;
  for (std::size_t attacker = 0; attacker < attackers; ++attacker) {
    raw_zmtp_peer peer{feed_endpoint, {}};
    ASSERT_TRUE(peer.handshake("SUB"));
    ASSERT_TRUE(peer.send_header(subscription_bytes));
    bool refused = !peer.write_all("\x01", 1);
    for (std::uint64_t sent = 1; sent < subscription_bytes && !refused; sent += chunk.size())
      refused = !peer.write_all(chunk.data(), std::min<std::uint64_t>(chunk.size(), subscription_bytes - sent));
    EXPECT_TRUE(refused || peer.closed_by_peer_within(5s)) << "the coordinator kept the connection";
    peak = std::max(peak, resident_bytes(campaign));
  }
  // The feed goes on: new events are stored (the feed actor is not stuck) while memory stays flat.
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events", events_before + 5)) << stderr_text();
  peak = std::max(peak, resident_bytes(campaign));
  RecordProperty("resident_bytes_before", std::to_string(before));
  RecordProperty("resident_bytes_peak", std::to_string(peak));
  EXPECT_LT(peak - before, allowed_growth_bytes) << "from " << before << " to " << peak << " bytes";
  expect_finished_and_stored(campaign);
}

TEST_F(FeedLimits, OversizedReplayRequestsDisconnectThePeerAndTheReplayEndpointGoesOn) {
  constexpr int requests = 4;
  constexpr std::size_t request_bytes = 64ull * 1024 * 1024;
  const pid_t campaign = start_campaign(3, 400);
  ASSERT_FALSE(replay_endpoint.empty()) << stderr_text();
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events WHERE type = 'branch_measured'", 1)) << stderr_text();
  const auto before = resident_bytes(campaign);
  ASSERT_GT(before, 0);

  // A JSON request padded to 64 MiB, four times: each is refused at its size.
  std::string big(request_bytes, ' ');
  big.replace(0, 10, R"({"after":0)");
  big.back() = '}';
  zmq::context_t context;
  std::int64_t peak = before;
  for (int request = 0; request < requests; ++request) {
    zmq::socket_t attacker{context, zmq::socket_type::req};
    attacker.set(zmq::sockopt::linger, 0);
    attacker.connect(replay_endpoint);
    attacker.send(zmq::buffer(big));
    zmq::pollitem_t item{attacker.handle(), 0, ZMQ_POLLIN, 0};
    EXPECT_EQ(zmq::poll(&item, 1, 300ms), 0) << "an oversized request is never answered";
    peak = std::max(peak, resident_bytes(campaign));
  }

  // The replay endpoint still answers a well-formed request, with the stored events.
  auto client = feed::replay_client::connect(replay_endpoint);
  ASSERT_TRUE(client);
  auto page = client->fetch(feed::replay_request{0, std::nullopt, std::nullopt}, 5s);
  ASSERT_TRUE(page) << feed::to_string(page.error());
  EXPECT_GE(page->header.count, 1u);
  EXPECT_EQ(page->events.front().decoded.seq, 1u);
  peak = std::max(peak, resident_bytes(campaign));
  RecordProperty("resident_bytes_before", std::to_string(before));
  RecordProperty("resident_bytes_peak", std::to_string(peak));
  EXPECT_LT(peak - before, allowed_growth_bytes) << "from " << before << " to " << peak << " bytes";
  expect_finished_and_stored(campaign);
}

TEST_F(FeedLimits, ASubscriberThatNeverReadsLosesOnlyItsOwnEventsAndTheOthersHearEveryBeat) {
  // A small queue per subscriber, and a stalled peer with small TCP buffers: its path is full
  // after 150 to 200 events (40 to 70 kB), and the campaign's five jobs go on for seconds after
  // that (before the fix the watcher heard nothing from then on).
  const pid_t campaign =
    start_campaign(16, 250, "high_water_mark = 20\n", {"softmax", "vector_add", "sgemm"});
  ASSERT_FALSE(feed_endpoint.empty()) << stderr_text();
  raw_zmtp_peer stalled{feed_endpoint, {.receive_buffer = 1, .max_segment = 88}};
  ASSERT_TRUE(stalled.handshake("SUB"));
  ASSERT_TRUE(stalled.send_frame("\x01", 0)) << "subscribes to every event, then never reads";

  auto watcher = feed::follower::connect({.endpoint = feed_endpoint, .replay_endpoint = replay_endpoint,
                                          .after_seq = 0});
  ASSERT_TRUE(watcher) << feed::to_string(watcher.error());
  std::vector<std::uint64_t> seqs;
  double longest_silence_s = 0;
  std::string last_type;
  for (auto deadline = std::chrono::steady_clock::now() + campaign_deadline;
       last_type != "campaign_finished" && std::chrono::steady_clock::now() < deadline;) {
    auto next = watcher->next(100ms);
    ASSERT_TRUE(next) << feed::to_string(next.error());
    longest_silence_s = std::max(longest_silence_s, watcher->silent_for_s().value_or(0));
    if (*next) {
      seqs.push_back((*next)->decoded.seq);
      last_type = std::string{feed::to_string((*next)->decoded.type)};
    }
  }
  expect_finished_and_stored(campaign);
  ASSERT_EQ(last_type, "campaign_finished");

  std::vector<std::uint64_t> every_seq(static_cast<std::size_t>(count("SELECT max(seq) FROM events")));
  std::iota(every_seq.begin(), every_seq.end(), 1);
  EXPECT_EQ(seqs, every_seq) << "the watcher got every seq once, in order";
  // A heartbeat every second: never 2 s without hearing the feed (the monitor's recipe calls it
  // silent after 5).
  EXPECT_LT(longest_silence_s, 2.0) << "the watcher went unheard-of for " << longest_silence_s << " s";
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'feed_dropped'"), 0)
    << "no event was refused to every subscriber";

  // The stalled peer did fill its path: what it holds stops short of the campaign's end.
  simdjson::dom::parser parser;
  std::uint64_t received = 0;
  std::uint64_t previous = 0;
  while (auto topic = stalled.read_frame(500ms)) {
    if (!stalled.more())
      continue;
    auto body = stalled.read_frame(500ms);
    if (!body)
      break;
    std::uint64_t seq = 0;
    if (parser.parse(*body)["seq"].get_uint64().get(seq) || *topic == "heartbeat")
      continue;
    EXPECT_GT(seq, previous) << "what it did get came in order";
    previous = seq;
    ++received;
  }
  // It stalled for seconds before the campaign ended: the watcher's beats above were heard
  // through that stall.
  const auto stalled_for_ms =
    count("SELECT CAST((max(ts) - (SELECT ts FROM events WHERE seq = " + std::to_string(previous) +
          ")) * 1000 AS INTEGER) FROM events");
  EXPECT_GE(stalled_for_ms, 3000) << "the stall was too short to show the watcher hears through it";
  RecordProperty("stalled_for_ms", std::to_string(stalled_for_ms));
  RecordProperty("stalled_received", std::to_string(received));
  RecordProperty("events_published", std::to_string(every_seq.size()));
  RecordProperty("watcher_replayed", std::to_string(watcher->replayed()));
  RecordProperty("longest_silence_ms", std::to_string(static_cast<int>(longest_silence_s * 1000)));
  EXPECT_LT(received, every_seq.size()) << "the stalled subscriber never filled its queue, or "
                                           "got events the others could not";
}

TEST_F(FeedLimits, AReplaySeqAboveTwoToTheSixtyThreeIsRefusedAndAFarUntilDoesNotHoldTheOthers) {
  const pid_t campaign = start_campaign(3, 400);
  ASSERT_FALSE(replay_endpoint.empty()) << stderr_text();
  ASSERT_TRUE(wait_for("SELECT count(*) FROM events", 3)) << stderr_text();
  zmq::context_t context;

  // 2^63 used to wrap to a negative seq and replay from seq 1.
  for (const auto* text : {R"({"after":9223372036854775808})", R"({"after":18446744073709551615})",
                           R"({"after":0,"until":9223372036854775808})"}) {
    zmq::socket_t raw{context, zmq::socket_type::req};
    raw.set(zmq::sockopt::linger, 0);
    raw.connect(replay_endpoint);
    raw.send(zmq::buffer(std::string_view{text}));
    zmq::pollitem_t item{raw.handle(), 0, ZMQ_POLLIN, 0};
    ASSERT_EQ(zmq::poll(&item, 1, 5s), 1) << text;
    zmq::message_t reply;
    ASSERT_TRUE(raw.recv(reply));
    EXPECT_NE(reply.to_string().find(R"("status":"bad_request")"), std::string::npos) << reply.to_string();
    EXPECT_NE(reply.to_string().find("is above the largest seq"), std::string::npos) << reply.to_string();
    EXPECT_FALSE(reply.more()) << text << ": no event follows a refusal";
  }

  // A request for an `until` the store will not reach waits out its catch-up (2 s)...
  zmq::socket_t far{context, zmq::socket_type::req};
  far.set(zmq::sockopt::linger, 0);
  far.connect(replay_endpoint);
  const auto asked = std::chrono::steady_clock::now();
  far.send(zmq::str_buffer(R"({"after":0,"until":9223372036854775807})"));
  // ... while other requests are answered at once.
  auto client = feed::replay_client::connect(replay_endpoint);
  ASSERT_TRUE(client);
  for (int request = 0; request < 3; ++request) {
    auto page = client->fetch(feed::replay_request{0, std::nullopt, 1}, 1s);
    ASSERT_TRUE(page) << feed::to_string(page.error());
    EXPECT_EQ(page->header.count, 1u);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - asked, feed::default_replay_catch_up);
  zmq::pollitem_t item{far.handle(), 0, ZMQ_POLLIN, 0};
  ASSERT_EQ(zmq::poll(&item, 1, 10s), 1) << "the far request is answered after its catch-up";
  zmq::message_t header;
  ASSERT_TRUE(far.recv(header));
  EXPECT_NE(header.to_string().find(R"("status":"ok")"), std::string::npos) << header.to_string();
  expect_finished_and_stored(campaign);
}

} // namespace
