#pragma once
// What `warpforge tail` shows: a pure renderer fed with events, from a store replay and then from
// the live feed. It folds them into a campaign_view (per-campaign status, per-job progress,
// per-GPU activity, the latest problems) and turns that into text; it never prints (the CLI does).
//
//   tail_view view;
//   for (auto& e : replayed) view.apply(e);   // from the store, by seq
//   view.apply(live_event);                   // older or repeated seq: ignored, never counted twice
//   std::string frame = view.render();        // a multi-line frame to redraw
//   std::string line = view.render_line(e);   // one line per event, for a scrolling log

#include "feed/campaign_view.hpp"
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

struct tail_options {
  std::size_t problem_lines = default_problem_lines; // problems kept and shown
  bool colour = false;                               // ANSI colours for states and problems
};

class tail_view {
public:
  explicit tail_view(tail_options options = {});

  /// Updates the state; false (and nothing changes) when e.seq <= the last applied seq, so a
  /// replay followed by live events never counts one twice, and for heartbeats (not events of
  /// the campaign: feed/heartbeat.hpp).
  bool apply(const event& e);

  /// A readable multi-line frame (ends with a newline): campaigns, a job table, GPU activity,
  /// the latest problems and the feed's drop count.
  std::string render() const;

  /// One line for one event: "#42 21:03:04 branch_measured nightly/gemm iter 3 branch 5 gpu 0:
  /// time_s=0.00123 cv=0.01". Times are UTC.
  std::string render_line(const event& e) const;

  const campaign_view& view() const { return view_; }
  std::optional<std::uint64_t> last_seq() const { return view_.last_seq(); }
  std::uint64_t applied() const { return view_.applied(); }           // events applied
  std::uint64_t ignored() const { return view_.ignored(); }           // ignored as already seen
  std::uint64_t feed_dropped() const { return view_.feed_dropped(); } // sum of feed_dropped reports
  const std::vector<campaign_status>& campaigns() const { return view_.campaigns(); }
  const std::vector<job_progress>& jobs() const { return view_.jobs(); }
  const std::map<int, gpu_activity>& gpus() const { return view_.gpus(); }
  const std::deque<problem>& problems() const { return view_.problems(); }

private:
  std::string colour(std::string_view text, std::string_view code) const;
  std::string state_text(run_state state, std::size_t width) const;

  tail_options options_;
  campaign_view view_;
};

} // namespace warpforge::feed
