// `warpforge tail [endpoint]`: a person's live view of a campaign, or raw JSON lines.
// With --run-dir the stored events are replayed first (from --from-seq), then the live feed
// continues; the subscriber connects before the replay, and events are applied by seq, so the
// seam between the two neither repeats nor drops an event.

#include "cli/commands.hpp"

#include "cli/interrupt.hpp"
#include "feed/defaults.hpp"
#include "feed/event_json.hpp"
#include "feed/subscriber.hpp"
#include "feed/tail_view.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>

namespace warpforge::cli {
namespace {

using namespace std::chrono_literals;

// How often the live loop wakes to check for Ctrl-C and the idle timeout.
constexpr auto poll_interval = 200ms;
// Events read from the store per query while replaying.
constexpr std::int64_t replay_page = 1000;
// ANSI: clear the screen and home the cursor before each frame of the live view.
constexpr auto clear_screen = "\x1b[2J\x1b[H";

enum class output_mode { view, log, json };

class printer {
public:
  printer(output_mode mode, bool colour) : mode_(mode), view_(feed::tail_options{.colour = colour}) {}

  // Shows one event unless its seq was already shown; returns whether it was new.
  bool show(const feed::event& e, std::string_view raw_json) {
    if (e.seq != 0 && e.seq <= last_seq_)
      return false;
    last_seq_ = std::max(last_seq_, e.seq);
    view_.apply(e);
    switch (mode_) {
      case output_mode::json: std::cout << raw_json << '\n'; break;
      case output_mode::log: std::cout << view_.render_line(e) << '\n'; break;
      case output_mode::view: std::cout << clear_screen << view_.render(); break;
    }
    std::cout.flush();
    return true;
  }

private:
  output_mode mode_;
  feed::tail_view view_;
  std::uint64_t last_seq_ = 0;
};

std::string endpoint_of(const tail_options& options) {
  if (!options.endpoint.empty())
    return options.endpoint;
  if (!options.run_dir.empty()) {
    std::ifstream in{std::filesystem::path{options.run_dir} / "feed.endpoint"};
    std::string endpoint;
    if (in >> endpoint)
      return endpoint;
  }
  return std::string{feed::default_endpoint};
}

} // namespace

exit_code tail(const tail_options& options) {
  if (options.from_seq && options.run_dir.empty()) {
    std::cerr << "warpforge tail: --from-seq replays from a run directory's store; give --run-dir\n";
    return exit_code::usage;
  }
  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  const output_mode mode = options.json ? output_mode::json
                           : (options.log || !terminal) ? output_mode::log
                                                        : output_mode::view;
  printer out{mode, terminal};
  watch_for_interrupt();

  const std::string endpoint = endpoint_of(options);
  std::vector<std::string> topics;
  if (!options.topic.empty())
    topics.push_back(options.topic);
  auto sub = feed::subscriber::connect(endpoint, topics);
  if (!sub) {
    std::cerr << "warpforge tail: " << endpoint << ": " << to_string(sub.error()) << '\n';
    return exit_code::failure;
  }

  std::uint64_t shown = 0;
  auto done = [&] { return options.count && shown >= *options.count; };

  if (!options.run_dir.empty()) {
    auto dir = storage::run_directory::open(options.run_dir);
    if (!dir) {
      std::cerr << "warpforge tail: " << storage::to_string(dir.error()) << '\n';
      return exit_code::bad_input;
    }
    auto db = storage::database::open_read_only(dir->database_path());
    if (!db) {
      std::cerr << "warpforge tail: " << storage::to_string(db.error()) << '\n';
      return exit_code::bad_input;
    }
    std::int64_t after = options.from_seq ? static_cast<std::int64_t>(*options.from_seq) : 0;
    for (;;) {
      auto rows = db->events_since(after, replay_page);
      if (!rows) {
        std::cerr << "warpforge tail: " << storage::to_string(rows.error()) << '\n';
        return exit_code::failure;
      }
      for (const auto& row : *rows) {
        after = row.seq;
        if (!options.topic.empty() && row.type.rfind(options.topic, 0) != 0)
          continue;
        auto e = feed::decode(row.json);
        if (!e) {
          std::cerr << "warpforge tail: stored event " << row.seq << ": " << to_string(e.error()) << '\n';
          continue;
        }
        shown += out.show(*e, row.json);
        if (done())
          return exit_code::ok;
      }
      if (rows->size() < static_cast<std::size_t>(replay_page))
        break;
    }
  }

  auto last_event = std::chrono::steady_clock::now();
  while (!done() && !interrupted()) {
    auto raw = sub->receive_raw(std::chrono::duration_cast<std::chrono::milliseconds>(poll_interval));
    if (!raw) {
      std::cerr << "warpforge tail: " << to_string(raw.error()) << '\n';
      continue; // a malformed message is reported, the feed goes on
    }
    if (!raw->has_value()) {
      const std::chrono::duration<double> idle = std::chrono::steady_clock::now() - last_event;
      if (options.idle_timeout_s > 0 && idle.count() >= options.idle_timeout_s)
        break;
      continue;
    }
    last_event = std::chrono::steady_clock::now();
    auto e = feed::decode(**raw);
    if (!e) {
      std::cerr << "warpforge tail: " << to_string(e.error()) << '\n';
      continue;
    }
    shown += out.show(*e, **raw);
  }
  return exit_code::ok;
}

} // namespace warpforge::cli
