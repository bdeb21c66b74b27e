#pragma once
// What a long command (run, resume, bench) shows on its terminal while it works, as text: the
// status block a TTY redraws in place, and the plain lines a log file gets instead. Pure
// renderers over a campaign_view; progress_display.hpp puts them on the terminal.
//
// The block (one line per job, one per GPU):
//   warpforge nightly: running 0:12:34, wall budget left 7:47:26 (feed live, seq 1234)
//   jobs 2 (1 running, 1 finished, 0 failed)  candidates measured 47, failed 3  GPUs leased 2/2
//     transpose      iter 4      measured 31    best 5.45x
//     row_reduction  finished (patience)  measured 16    best 1.80x
//     GPU 0  occupied 93%   transpose iter 4 branch 2
//     GPU 1  occupied 88%   idle
// "leased": on a race or profile now; "occupied": the share of the time under lease (busy, kernel
// time over wall time, is the end of the run's and `report`'s word: docs/report.md, "Throughput").

#include "feed/campaign_view.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpforge::feed {

/// What the renderers need beside the events: the clock and what the caller knows.
struct progress_context {
  double now_ts = 0.0;                 // the time to measure elapsed and busy shares to, unix [s]
  std::optional<double> wall_budget_s; // the campaign's wall budget [s]; nullopt: campaign_started's
  std::string feed_state;              // "live", "silent"... shown beside the seq; empty: none
  std::size_t width = 0;               // truncate lines to this many characters; 0: no limit
};

/// The status block, one string per line (no newlines).
std::vector<std::string> render_progress_block(const campaign_view& view, const progress_context& context);

/// A plain line for an event a person watching a log wants to see (a job or iteration ending, a
/// new champion, a failure, the campaign's end); nullopt for the others. Apply `e` to `view` first.
std::optional<std::string> render_progress_line(const campaign_view& view, const event& e);

/// The periodic one-line summary of the plain mode:
/// "progress 0:05:00: jobs 1 running, 1 finished, 0 failed; 47 candidates measured; GPUs leased 2/2;
///  wall budget left 7:55:00".
std::string render_progress_summary(const campaign_view& view, const progress_context& context);

} // namespace warpforge::feed
