#pragma once
// Progress on the terminal for long commands (run, resume, bench): a thread follows the command's
// own feed (feed::follower: every event from seq 1, replayed if it subscribed late) into a
// campaign_view and shows it. On a TTY it keeps the status block of progress_view.hpp at the
// bottom of the screen (terminal_block.hpp), redrawn as events come and the clock ticks; when the
// output is not a TTY (a log file, CI) it writes plain lines instead: one per job or iteration
// that ends, new champion and failure, and a summary line every minute. --quiet shows nothing.
//
//   auto progress = feed::start_progress(runtime.feed_endpoint(),
//                                        {.quiet = options.quiet, .run_dir = dir.path()});
//   ... the campaign runs; log lines scroll above the block ...
//   runtime.stop();    // the feed and the store drain
//   progress.stop();   // or let it go out of scope: the final block stays on the screen
//
// It only reads the feed, so it can neither slow nor break the campaign; if it cannot follow the
// feed it says so in one line and shows nothing more.

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace warpforge::feed {

/// How often, at most, the TTY block is redrawn [ms].
inline constexpr std::chrono::milliseconds default_redraw_interval{250};
/// How often the plain mode writes its summary line [s].
inline constexpr std::chrono::seconds default_summary_interval{60};
/// How long stop() keeps reading for events still on their way (the campaign's last ones) [ms].
inline constexpr std::chrono::milliseconds default_drain_timeout{1000};

struct progress_options {
  bool quiet = false;                  // --quiet: show nothing at all
  std::optional<double> wall_budget_s{}; // the campaign's wall budget, for "budget left" [s];
                                       // nullopt: campaign_started's wall_time_s, if sent
  std::filesystem::path run_dir{};     // the command's run directory: its replay.endpoint is used
                                       // from the start, and at stop() the events the feed did not
                                       // deliver in time are read from its database; empty: neither
  std::string replay_endpoint{};       // empty: run_dir's, else learnt from the feed's heartbeats
  int fd = STDERR_FILENO;              // where it writes (the command's own output is elsewhere)
  std::optional<bool> terminal{};      // nullopt: a TTY whose $TERM is set and not "dumb" gets
                                       // the block, anything else plain lines
  std::chrono::milliseconds redraw_interval = default_redraw_interval;
  std::chrono::seconds summary_interval = default_summary_interval;
  std::chrono::milliseconds drain_timeout = default_drain_timeout;
};

class progress_display {
public:
  progress_display(); // shows nothing (quiet)
  progress_display(progress_display&&) noexcept;
  progress_display& operator=(progress_display&&) noexcept;
  ~progress_display(); // stop()

  /// Reads what is still on its way (at most drain_timeout) and what the run directory's store
  /// holds beyond it, leaves the final block (or summary line) on the terminal and ends the
  /// thread. Idempotent.
  void stop();

private:
  friend progress_display start_progress(std::string endpoint, progress_options options);
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Starts following `endpoint` (the command's feed) unless options.quiet.
progress_display start_progress(std::string endpoint, progress_options options);

} // namespace warpforge::feed
