// `warpforge tail [run-dir | endpoint]`: a person's live view of a campaign, or raw JSON lines.
// Given a run directory (positional or --run-dir) the stored events are replayed from the
// database first (from --from-seq), then the live feed continues through feed::follower, which
// asks the replay endpoint for whatever was published between the two; without a run
// directory, --from-seq replays over the network. Events
// are shown by seq, each once, so the seams neither repeat nor drop an event. It stops at the
// campaign's end event (at once for a finished run nobody is running), --count, --idle-timeout,
// or Ctrl-C (exit 130). A feed that never answers (no event, no heartbeat) within
// --wait-for-feed (apps/warpforge/cli/defaults.hpp, feed_answer_wait) is said to be silent, exit 1.

#include "apps/warpforge/cli/commands.hpp"

#include "apps/warpforge/cli/interrupt.hpp"
#include "apps/warpforge/cli/user_errors.hpp"
#include "feed/defaults.hpp"
#include "feed/endpoint.hpp"
#include "feed/event_json.hpp"
#include "feed/follower.hpp"
#include "feed/tail_view.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"
#include "storage/run_owner.hpp"

#include <unistd.h>

#include <chrono>
#include <iostream>

namespace warpforge::cli {
namespace {

using namespace std::chrono_literals;

// How often the live loop wakes to check for Ctrl-C, silence and the idle timeout.
constexpr auto poll_interval = 200ms;
// Events read from the store per query while replaying.
constexpr std::int64_t replay_page = 1000;
// ANSI: clear the screen and home the cursor before each frame of the live view.
constexpr auto clear_screen = "\x1b[2J\x1b[H";

enum class output_mode { view, log, json };

class printer {
public:
  printer(output_mode mode, bool colour, std::string topic)
      : mode_(mode), topic_(std::move(topic)), view_(feed::tail_options{.colour = colour}) {}

  // Shows one event unless its seq was already shown or the topic filter leaves it out; returns
  // whether it was shown.
  bool show(const feed::event& e, std::string_view raw_json) {
    if (e.seq != 0 && e.seq <= last_seq_)
      return false;
    last_seq_ = std::max(last_seq_, e.seq);
    if (e.type == feed::event_type::campaign_started)
      ended_ = false; // a resume starts it again
    if (e.type == feed::event_type::campaign_finished || e.type == feed::event_type::campaign_failed ||
        e.type == feed::event_type::campaign_interrupted)
      ended_ = true;
    if (!topic_.empty() && feed::to_string(e.type).rfind(topic_, 0) != 0)
      return false;
    view_.apply(e);
    switch (mode_) {
      case output_mode::json: std::cout << raw_json << '\n'; break;
      case output_mode::log: std::cout << view_.render_line(e) << '\n'; break;
      case output_mode::view: redraw(); break;
    }
    std::cout.flush();
    return true;
  }

  // The live view's footer: where the feed is and whether it is heard.
  void set_feed_line(std::string line) {
    if (line == feed_line_)
      return;
    feed_line_ = std::move(line);
    if (mode_ == output_mode::view) {
      redraw();
      std::cout.flush();
    } else {
      std::cerr << "warpforge tail: " << feed_line_ << '\n';
    }
  }

  std::uint64_t last_seq() const { return last_seq_; }
  /// Whether the latest campaign_* event seen (topic filter or not) ended the campaign.
  bool campaign_ended() const { return ended_; }

private:
  void redraw() { std::cout << clear_screen << view_.render() << '\n' << feed_line_ << '\n'; }

  output_mode mode_;
  std::string topic_;
  feed::tail_view view_;
  std::uint64_t last_seq_ = 0;
  bool ended_ = false;
  std::string feed_line_;
};

// Nothing more will come from a run whose store holds its end and that no process is running.
bool run_is_over(const tail_options& options, const printer& out) {
  if (!out.campaign_ended())
    return false;
  auto dir = storage::run_directory::open(options.run_dir);
  return dir && !storage::run_owner::holder(*dir);
}

std::string endpoint_of(const tail_options& options) {
  if (!options.endpoint.empty())
    return options.endpoint;
  if (auto dir = storage::run_directory::open(options.run_dir))
    if (auto endpoint = feed::read_endpoint_file(dir->feed_endpoint_path()); !endpoint.empty())
      return endpoint;
  return std::string{feed::default_endpoint};
}

std::string replay_endpoint_of(const tail_options& options) {
  if (!options.replay_endpoint.empty())
    return options.replay_endpoint;
  if (options.endpoint.empty())
    if (auto dir = storage::run_directory::open(options.run_dir))
      return feed::read_endpoint_file(dir->replay_endpoint_path());
  return {}; // learnt from the feed's heartbeats
}

// "feed tcp://...: live, replay tcp://...", for the footer and for stderr.
std::string feed_line(const feed::follower_options& follow, const feed::follower& f) {
  std::string line = "feed " + follow.endpoint + ": " + std::string{feed::to_string(f.health())};
  if (f.health() == feed::feed_health::silent)
    line += " (no event and no heartbeat for over " +
            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(follow.silence).count()) +
            " s: the campaign ended, or it or the network is down)";
  line += f.replay_endpoint().empty() ? ", no replay endpoint known yet"
                                      : ", replay " + f.replay_endpoint();
  if (f.missed() > 0)
    line += ", " + std::to_string(f.missed()) + " event(s) could not be replayed";
  return line;
}

// Shows the stored events after `after`; the seq of the last one read (or `after`).
expected<std::uint64_t, exit_code> replay_store(const tail_options& options, std::uint64_t after,
                                                printer& out, std::uint64_t& shown) {
  auto dir = storage::run_directory::open(options.run_dir);
  if (!dir) {
    std::cerr << "warpforge tail: " << user_message(dir.error()) << '\n';
    return unexpected{exit_code::bad_input};
  }
  auto db = storage::database::open_read_only(dir->database_path());
  if (!db) {
    std::cerr << "warpforge tail: " << user_message(db.error()) << '\n';
    return unexpected{exit_code::bad_input};
  }
  for (;;) {
    auto rows = db->events_since(static_cast<std::int64_t>(after), replay_page);
    if (!rows) {
      std::cerr << "warpforge tail: " << user_message(rows.error()) << '\n';
      return unexpected{exit_code::failure};
    }
    for (const auto& row : *rows) {
      after = static_cast<std::uint64_t>(row.seq);
      auto e = feed::decode(row.json);
      if (!e) {
        std::cerr << "warpforge tail: stored event " << row.seq << ": " << user_message(e.error()) << '\n';
        continue;
      }
      shown += out.show(*e, row.json);
      if (options.count && shown >= *options.count)
        return after;
    }
    if (rows->size() < static_cast<std::size_t>(replay_page))
      return after;
  }
}

} // namespace

exit_code tail(const tail_options& options) {
  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  const output_mode mode = options.json ? output_mode::json
                           : (options.log || !terminal) ? output_mode::log
                                                        : output_mode::view;
  printer out{mode, terminal, options.topic};
  watch_for_interrupt();

  std::uint64_t shown = 0;
  auto done = [&] { return options.count && shown >= *options.count; };

  // Where the live feed starts: after the stored events, after --from-seq, or now.
  std::optional<std::uint64_t> after_seq = options.from_seq;
  if (!options.run_dir.empty()) {
    auto last = replay_store(options, options.from_seq.value_or(0), out, shown);
    if (!last)
      return last.error();
    after_seq = *last;
    if (done() || run_is_over(options, out))
      return exit_code::ok;
  }

  const std::string endpoint = endpoint_of(options);
  feed::follower_options follow;
  follow.endpoint = endpoint;
  follow.replay_endpoint = replay_endpoint_of(options);
  follow.after_seq = after_seq;
  // After the store's events only the seam can be missing: the next heartbeat shows it.
  follow.replay_at_start = options.run_dir.empty();
  auto follower = feed::follower::connect(follow);
  if (!follower) {
    std::cerr << "warpforge tail: " << user_message(follower.error(), endpoint) << '\n';
    return exit_code::failure;
  }

  auto last_event = std::chrono::steady_clock::now();
  // Until Ctrl-C, --count or --idle-timeout, the campaign's end event, or the reader of stdout
  // going away (`warpforge tail | head -3`: SIGPIPE is ignored, so a failed write ends it).
  while (!done() && !interrupted() && !out.campaign_ended() && std::cout.good()) {
    auto next = follower->next(std::chrono::duration_cast<std::chrono::milliseconds>(poll_interval));
    if (follower->health() != feed::feed_health::waiting)
      out.set_feed_line(feed_line(follow, *follower));
    if (!next) {
      if (interrupted())
        break; // the signal broke the wait: not a socket failure to report
      std::cerr << "warpforge tail: " << user_message(next.error()) << '\n';
      continue; // a malformed message is reported, the feed goes on
    }
    if (!next->has_value()) {
      const std::chrono::duration<double> idle = std::chrono::steady_clock::now() - last_event;
      if (options.idle_timeout_s > 0 && idle.count() >= options.idle_timeout_s)
        break;
      // Never heard, not even a heartbeat: say so rather than wait in silence (0: for ever).
      if (follower->health() == feed::feed_health::waiting && options.feed_answer_wait_s > 0 &&
          idle.count() >= options.feed_answer_wait_s) {
        std::cerr << "warpforge tail: nothing answered at " << endpoint << " within "
                  << options.feed_answer_wait_s << " s (no event and no heartbeat): no campaign is publishing there"
                  << (options.run_dir.empty()
                        ? ". Name the run directory instead (warpforge tail runs/<run>)"
                        : "; the run's campaign is not running (warpforge status " + options.run_dir +
                            " says where it stands)")
                  << ", or wait for ever with --wait-for-feed 0\n";
        return exit_code::failure;
      }
      continue;
    }
    last_event = std::chrono::steady_clock::now();
    shown += out.show((*next)->decoded, (*next)->json);
  }
  return interrupted() ? exit_code::interrupted : exit_code::ok;
}

} // namespace warpforge::cli
