#include "feed/follower.hpp"

#include "feed/endpoint.hpp"
#include "feed/replay_client.hpp"
#include "feed/subscriber.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <deque>
#include <map>

namespace warpforge::feed {
namespace {

using clock = std::chrono::steady_clock;

// How long after a replay that failed or came back short the follower asks again.
constexpr std::chrono::milliseconds replay_retry{200};

} // namespace

constexpr vocabulary::enum_word<feed_health> feed_health_words[] = {
    {feed_health::waiting, "waiting"},
    {feed_health::live, "live"},
    {feed_health::silent, "silent"},
};
static_assert(vocabulary::covers(feed_health_words, all_feed_healths));

std::string_view to_string(feed_health health) { return vocabulary::word_of(feed_health_words, health); }

std::optional<feed_health> feed_health_from_string(std::string_view text) {
  return vocabulary::value_of(feed_health_words, text);
}

struct follower::impl {
  follower_options options;
  subscriber sub;
  std::optional<replay_client> replay;
  bool replay_learnt = false; // the endpoint came from a heartbeat (and may change with the next)

  std::optional<std::uint64_t> last;     // last seq handed out, queued, or skipped as missed
  bool initial_replay_pending = false;   // options.after_seq given and not yet replayed
  std::deque<wire_event> ready;          // in seq order, each once
  std::map<std::uint64_t, wire_event> held; // live events waiting behind a gap, by seq
  std::uint64_t known_published = 0;     // highest seq known to exist (heard live or in a heartbeat)

  clock::time_point started = clock::now();
  std::optional<clock::time_point> last_heard;
  std::optional<clock::time_point> gap_since;
  clock::time_point next_replay_try{};

  std::uint64_t replayed = 0;
  std::uint64_t missed = 0;
  std::uint64_t duplicates = 0;
  std::optional<heartbeat> last_heartbeat;
  std::optional<feed_error> last_replay_error;

  impl(follower_options opts, subscriber s) : options(std::move(opts)), sub(std::move(s)) {}

  void use_replay_endpoint(const std::string& endpoint, bool learnt) {
    if (replay && replay->endpoint() == endpoint)
      return;
    auto client = replay_client::connect(endpoint);
    if (!client) {
      last_replay_error = client.error();
      return;
    }
    replay.emplace(std::move(*client));
    replay_learnt = learnt;
    next_replay_try = {};
  }

  /// Takes in one message from the feed.
  void absorb(wire_event message) {
    last_heard = clock::now();
    const auto seq = message.decoded.seq;
    if (message.decoded.type == event_type::heartbeat) {
      auto pulse = read_heartbeat(message.decoded);
      if (!pulse)
        return; // a heartbeat we cannot read tells only that the feed is alive
      if (!pulse->replay_endpoint.empty() && (!replay || replay_learnt) &&
          options.replay_endpoint.empty())
        use_replay_endpoint(reachable_endpoint(pulse->replay_endpoint, options.endpoint), true);
      if (!last && !initial_replay_pending)
        last = pulse->last_seq; // following from now: what came before is not wanted
      known_published = std::max(known_published, pulse->last_seq);
      last_heartbeat = std::move(*pulse);
      return;
    }
    if (!last && !initial_replay_pending)
      last = seq == 0 ? 0 : seq - 1; // following from now: this event is the first
    if (last && seq <= *last) {
      ++duplicates;
      return;
    }
    known_published = std::max(known_published, seq);
    held.emplace(seq, std::move(message));
  }

  /// Asks the replay endpoint for the events after `last` (up to `until`), page by page, and
  /// queues them. True when it got everything asked for.
  bool fill(std::optional<std::uint64_t> until) {
    if (!replay || clock::now() < next_replay_try)
      return false;
    for (;;) {
      auto page = replay->fetch(replay_request{last.value_or(0), until, std::nullopt},
                                options.replay_timeout);
      if (!page) {
        last_replay_error = page.error();
        next_replay_try = clock::now() + replay_retry;
        return false;
      }
      last_replay_error.reset();
      for (auto& e : page->events) {
        const auto seq = e.decoded.seq;
        if (last && seq <= *last)
          continue;
        // A seq the store never held (a failed write) is lost for good.
        missed += last && seq > *last + 1 ? seq - *last - 1 : 0;
        last = seq;
        ++replayed;
        ready.push_back(std::move(e));
      }
      if (!page->header.more || page->events.empty())
        break;
    }
    const bool complete = !until || (last && *last >= *until);
    if (!complete)
      next_replay_try = clock::now() + replay_retry; // the store had not caught up yet
    return complete;
  }

  /// Moves held events that follow `last` without a gap to the ready queue.
  void release_held() {
    while (!held.empty() && last && held.begin()->first <= *last + 1) {
      auto node = held.extract(held.begin());
      if (node.key() == *last + 1) {
        last = node.key();
        ready.push_back(std::move(node.mapped()));
      } else {
        ++duplicates; // replayed meanwhile
      }
    }
  }

  /// Makes what can be handed out ready: the initial replay, held events, gaps.
  void advance() {
    const auto now = clock::now();
    if (initial_replay_pending) {
      if (fill(std::nullopt)) {
        initial_replay_pending = false;
      } else if (now - started >= options.silence && !replay) {
        initial_replay_pending = false; // no replay endpoint was ever heard of: go on live
        last_replay_error = feed_error{feed_errc::no_reply, "replay",
                                       "no replay endpoint given or heard in a heartbeat"};
      } else {
        return; // hold everything until what came before is in
      }
    }
    release_held();
    if (!last)
      return;
    std::optional<std::uint64_t> gap_end;
    if (!held.empty())
      gap_end = held.begin()->first - 1;
    else if (known_published > *last)
      gap_end = known_published;
    if (!gap_end) {
      gap_since.reset();
      return;
    }
    if (!gap_since)
      gap_since = now;
    if (fill(gap_end)) {
      gap_since.reset();
    } else if (now - *gap_since >= options.silence) {
      // Not fillable in time: skip it rather than stall the monitor for good.
      missed += *gap_end - *last;
      last = *gap_end;
      gap_since.reset();
    }
    release_held();
  }

  /// Time to wait for the next message: the caller's, shortened while a replay is pending.
  std::chrono::milliseconds wait_for(clock::time_point deadline) const {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    if (initial_replay_pending || gap_since)
      left = std::min(left, replay_retry);
    return std::max(left, std::chrono::milliseconds::zero());
  }
};

follower::follower(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
follower::follower(follower&&) noexcept = default;
follower& follower::operator=(follower&&) noexcept = default;
follower::~follower() = default;

expected<follower, feed_error> follower::connect(follower_options options) {
  auto sub = subscriber::connect(options.endpoint);
  if (!sub)
    return unexpected{sub.error()};
  auto state = std::make_unique<impl>(std::move(options), std::move(*sub));
  if (!state->options.replay_endpoint.empty()) {
    auto client = replay_client::connect(state->options.replay_endpoint);
    if (!client)
      return unexpected{client.error()};
    state->replay.emplace(std::move(*client));
  }
  if (state->options.after_seq) {
    state->last = state->options.after_seq;
    state->initial_replay_pending = state->options.replay_at_start;
  }
  return follower{std::move(state)};
}

expected<std::optional<wire_event>, feed_error> follower::next(std::chrono::milliseconds timeout) {
  auto& s = *impl_;
  const auto deadline = clock::now() + timeout;
  for (;;) {
    s.advance();
    if (!s.ready.empty()) {
      auto e = std::move(s.ready.front());
      s.ready.pop_front();
      return std::optional{std::move(e)};
    }
    const auto wait = s.wait_for(deadline);
    if (wait == std::chrono::milliseconds::zero() && clock::now() >= deadline)
      return std::optional<wire_event>{};
    auto message = s.sub.receive_wire(wait);
    if (!message)
      return unexpected{message.error()};
    if (*message)
      s.absorb(std::move(**message));
  }
}

feed_health follower::health() const {
  if (!impl_->last_heard)
    return feed_health::waiting;
  return clock::now() - *impl_->last_heard > impl_->options.silence ? feed_health::silent
                                                                     : feed_health::live;
}

std::optional<double> follower::silent_for_s() const {
  if (!impl_->last_heard)
    return std::nullopt;
  return std::chrono::duration<double>(clock::now() - *impl_->last_heard).count();
}

std::optional<std::uint64_t> follower::last_seq() const {
  return impl_->last;
}

std::uint64_t follower::replayed() const {
  return impl_->replayed;
}

std::uint64_t follower::missed() const {
  return impl_->missed;
}

std::uint64_t follower::duplicates() const {
  return impl_->duplicates;
}

const std::string& follower::replay_endpoint() const {
  static const std::string none;
  return impl_->replay ? impl_->replay->endpoint() : none;
}

std::optional<heartbeat> follower::last_heartbeat() const {
  return impl_->last_heartbeat;
}

std::optional<feed_error> follower::last_replay_error() const {
  return impl_->last_replay_error;
}

} // namespace warpforge::feed
