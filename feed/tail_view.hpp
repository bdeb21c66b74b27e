#pragma once
// What `warpforge tail` shows: a pure renderer fed with events, from a store replay and then from
// the live feed. It keeps per-campaign status, per-job progress, per-GPU activity and the latest
// problems, and turns them into text; it never prints (the CLI does).
//
//   tail_view view;
//   for (auto& e : replayed) view.apply(e);   // from the store, by seq
//   view.apply(live_event);                   // older or repeated seq: ignored, never counted twice
//   std::string frame = view.render();        // a multi-line frame to redraw
//   std::string line = view.render_line(e);   // one line per event, for a scrolling log

#include "feed/event.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::feed {

/// Problems (errors, warnings, failures, restarts) a frame lists, newest last.
inline constexpr std::size_t default_problem_lines = 8;

struct tail_options {
  std::size_t problem_lines = default_problem_lines; // problems kept and shown
  bool colour = false;                               // ANSI colours for states and problems
};

/// Where a campaign or a job stands, as far as the events tell.
enum class run_state : std::uint8_t {
  running,     // started (or first seen) and not ended
  finished,    // ended normally
  failed,      // ended by a fatal error
  interrupted, // stopped by a signal or crash; resumable (campaigns only)
};

std::string_view to_string(run_state state);
std::optional<run_state> run_state_from_string(std::string_view text);

inline constexpr run_state all_run_states[] = {run_state::running, run_state::finished,
                                               run_state::failed, run_state::interrupted};

struct campaign_status {
  std::string name;
  run_state state = run_state::running;
  double started_ts = 0.0; // first event seen, unix time [s]
  double last_ts = 0.0;    // latest event seen, unix time [s]
};

struct job_progress {
  std::string campaign;
  std::string name;
  run_state state = run_state::running;
  std::int64_t iteration = no_iter;      // highest iteration seen; no_iter = none yet
  std::uint64_t branches_measured = 0;   // branch_measured events
  std::uint64_t branches_failed = 0;     // branch_failed events
  std::optional<double> baseline_time_s; // job_started's baseline_time_s [s]
  std::optional<double> best_time_s;     // fastest time_s of a measurement or champion [s]
  std::optional<double> best_speedup;    // largest speed-up over the baseline (1.0 = as fast)
};

struct gpu_activity {
  int gpu = no_gpu;
  bool idle = true;                     // released, or nothing seen since the lease ended
  std::string job;                      // job of the latest event on this GPU
  std::int64_t iter = no_iter;
  std::int64_t branch = no_branch;
  event_type last = event_type::gpu_released; // the latest event on this GPU
  std::string summary;                  // its key detail, e.g. "1.234 ms" or a failure reason
  double since_ts = 0.0;                // when it happened, unix time [s]
};

/// An error, warning, failure or restart, with its place.
struct problem {
  std::uint64_t seq = 0;
  double ts = 0.0;      // unix time [s]
  event_type type = event_type::error;
  std::string place;    // "nightly/gemm iter 3 branch 5 gpu 1", or "" for the whole run
  std::string message;  // detail's message or reason, and what else identifies it
};

class tail_view {
public:
  explicit tail_view(tail_options options = {});

  /// Updates the state; false (and nothing changes) when e.seq <= the last applied seq, so a
  /// replay followed by live events never counts one twice.
  bool apply(const event& e);

  /// A readable multi-line frame (ends with a newline): campaigns, a job table, GPU activity,
  /// the latest problems and the feed's drop count.
  std::string render() const;

  /// One line for one event: "#42 21:03:04 branch_measured nightly/gemm iter 3 branch 5 gpu 0:
  /// time_s=0.00123 cv=0.01". Times are UTC.
  std::string render_line(const event& e) const;

  std::optional<std::uint64_t> last_seq() const { return last_seq_; }
  std::uint64_t applied() const { return applied_; } // events applied
  std::uint64_t ignored() const { return ignored_; } // events ignored as already seen
  std::uint64_t feed_dropped() const { return feed_dropped_; } // sum of feed_dropped reports
  const std::vector<campaign_status>& campaigns() const { return campaigns_; }
  const std::vector<job_progress>& jobs() const { return jobs_; }
  const std::map<int, gpu_activity>& gpus() const { return gpus_; }
  const std::deque<problem>& problems() const { return problems_; }

private:
  campaign_status& campaign_for(const event& e);
  job_progress& job_for(const event& e);
  std::string colour(std::string_view text, std::string_view code) const;
  std::string state_text(run_state state, std::size_t width) const;

  tail_options options_;
  std::optional<std::uint64_t> last_seq_;
  std::uint64_t applied_ = 0;
  std::uint64_t ignored_ = 0;
  std::uint64_t feed_dropped_ = 0;
  std::uint64_t problems_seen_ = 0;
  std::vector<campaign_status> campaigns_; // in order of appearance
  std::vector<job_progress> jobs_;         // in order of appearance
  std::map<int, gpu_activity> gpus_;       // by GPU index
  std::deque<problem> problems_;           // the latest options_.problem_lines, oldest first
};

} // namespace warpforge::feed
