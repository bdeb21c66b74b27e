#include "feed/progress_display.hpp"

#include "feed/campaign_view.hpp"
#include "feed/endpoint.hpp"
#include "feed/event_json.hpp"
#include "feed/follower.hpp"
#include "feed/progress_view.hpp"
#include "feed/terminal_block.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <sys/ioctl.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <thread>

namespace warpforge::feed {
namespace {

using clock = std::chrono::steady_clock;

// How long one wait for the next event lasts, so the clock and stop() are seen promptly.
constexpr std::chrono::milliseconds event_wait{100};
// The block shows elapsed time: redraw at least this often even without events.
constexpr std::chrono::seconds clock_tick{1};

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct terminal_size {
  std::size_t rows = 0;
  std::size_t cols = 0;
};

/// A terminal that reads the escape sequences the block needs ("dumb" ones and unknown ones do not).
bool understands_escapes() {
  const char* term = std::getenv("TERM");
  return term != nullptr && *term != '\0' && std::string_view{term} != "dumb";
}

std::optional<terminal_size> size_of(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0)
    return std::nullopt;
  return terminal_size{size.ws_row, size.ws_col};
}

} // namespace

struct progress_display::impl {
  progress_options options;
  std::string endpoint;
  bool block_mode = false; // a TTY: the status block; else plain lines
  std::atomic<bool> stopping{false};
  std::thread thread;

  /// Writes all of `text`; a terminal that went away ends the output quietly.
  void write_all(std::string_view text) const {
    while (!text.empty()) {
      const auto written = ::write(options.fd, text.data(), text.size());
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0)
        return;
      text.remove_prefix(static_cast<std::size_t>(written));
    }
  }

  /// Applies the events the run directory's store holds beyond the view: the campaign's last
  /// ones, when the feed closed before they reached this subscriber.
  void catch_up_from_store(campaign_view& view) const {
    auto dir = storage::run_directory::open(options.run_dir);
    if (!dir)
      return;
    auto db = storage::database::open_read_only(dir->database_path());
    if (!db)
      return;
    constexpr std::int64_t page = 1000;
    for (auto after = static_cast<std::int64_t>(view.last_seq().value_or(0));;) {
      auto rows = db->events_since(after, page);
      if (!rows || rows->empty())
        return;
      for (const auto& row : *rows) {
        after = row.seq;
        auto e = decode(row.json);
        if (e && view.apply(*e) && !block_mode)
          if (auto line = render_progress_line(view, *e))
            write_all(*line + "\n");
      }
    }
  }

  progress_context context_of(const follower& f, std::size_t width) const {
    progress_context context;
    context.now_ts = unix_now_s();
    context.wall_budget_s = options.wall_budget_s;
    context.feed_state = std::string{to_string(f.health())};
    context.width = width;
    return context;
  }

  void run() {
    follower_options follow;
    follow.endpoint = endpoint;
    follow.replay_endpoint = options.replay_endpoint;
    if (follow.replay_endpoint.empty() && !options.run_dir.empty())
      if (auto dir = storage::run_directory::open(options.run_dir))
        follow.replay_endpoint = read_endpoint_file(dir->replay_endpoint_path());
    follow.after_seq = 0; // the whole campaign, whenever this subscribed
    auto f = follower::connect(follow);
    if (!f) {
      write_all("progress: cannot follow the feed at " + endpoint + ": " + to_string(f.error()) + "\n");
      return;
    }
    campaign_view view;
    terminal_block block;
    auto last_paint = clock::time_point{};
    auto last_summary = clock::now();
    bool changed = true;
    std::optional<clock::time_point> drain_deadline;

    auto paint = [&] {
      auto size = size_of(options.fd);
      if (!size)
        return;
      write_all(block.paint(render_progress_block(view, context_of(*f, size->cols - 1)), size->rows,
                            size->cols));
      last_paint = clock::now();
      changed = false;
    };

    for (;;) {
      if (stopping && !drain_deadline)
        drain_deadline = clock::now() + options.drain_timeout;
      auto next = f->next(event_wait);
      const bool got_event = next && *next;
      if (got_event && view.apply((*next)->decoded)) {
        changed = true;
        if (!block_mode)
          if (auto line = render_progress_line(view, (*next)->decoded))
            write_all(*line + "\n");
      }
      if (drain_deadline && (!got_event || clock::now() >= *drain_deadline))
        break;
      const auto now = clock::now();
      if (block_mode) {
        if ((changed && now - last_paint >= options.redraw_interval) || now - last_paint >= clock_tick)
          paint();
      } else if (now - last_summary >= options.summary_interval) {
        write_all(render_progress_summary(view, context_of(*f, 0)) + "\n");
        last_summary = now;
      }
    }

    if (!options.run_dir.empty())
      catch_up_from_store(view);
    if (block_mode) {
      auto size = size_of(options.fd);
      write_all(block.release(render_progress_block(view, context_of(*f, size ? size->cols - 1 : 0))));
    } else {
      write_all(render_progress_summary(view, context_of(*f, 0)) + "\n");
    }
  }
};

progress_display::progress_display() = default;
progress_display::progress_display(progress_display&&) noexcept = default;
progress_display& progress_display::operator=(progress_display&& other) noexcept {
  if (this != &other) {
    stop();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

progress_display::~progress_display() {
  stop();
}

void progress_display::stop() {
  if (!impl_)
    return;
  impl_->stopping = true;
  if (impl_->thread.joinable())
    impl_->thread.join();
  impl_.reset();
}

progress_display start_progress(std::string endpoint, progress_options options) {
  progress_display display;
  if (options.quiet)
    return display;
  auto state = std::make_unique<progress_display::impl>();
  state->block_mode = options.terminal.value_or(::isatty(options.fd) == 1 && understands_escapes()) &&
                      size_of(options.fd).has_value();
  state->options = std::move(options);
  state->endpoint = std::move(endpoint);
  state->thread = std::thread{[raw = state.get()] { raw->run(); }};
  display.impl_ = std::move(state);
  return display;
}

} // namespace warpforge::feed
