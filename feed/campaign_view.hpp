#pragma once
// What a campaign looks like from its events: the one fold behind `warpforge tail`, the terminal
// progress (progress_view) and the dashboard. Fed with events in seq order (a replay, then the
// live feed), it keeps each campaign's state, each job's progress (iterations, measurements,
// baseline, champion, speed-up per iteration, roofline position, language-model spend), each
// GPU's activity and busy time, the latest problems and the latest events. It never prints: the
// views render it.
//
//   campaign_view view;
//   for (auto& e : replayed) view.apply(e);   // from the store, by seq
//   view.apply(live_event);                   // older or repeated seq: ignored, never counted twice
//   view.jobs()[0].champion_speedup();        // 5.45 (baseline / the campaign's best)

#include "feed/event.hpp"
#include "feed/event_text.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::feed {

/// Problems (errors, warnings, failures, restarts) kept, newest last.
inline constexpr std::size_t default_problem_lines = 8;
/// Events kept for "recent events", newest last.
inline constexpr std::size_t default_recent_events = 30;

struct campaign_view_options {
  std::size_t problem_lines = default_problem_lines; // problems kept
  std::size_t recent_events = default_recent_events; // events kept
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
  double started_ts = 0.0;              // first event seen, unix time [s]
  double last_ts = 0.0;                 // latest event seen, unix time [s]
  std::optional<double> ended_ts;       // its campaign_finished/failed/interrupted, unix time [s]
  std::optional<double> wall_budget_s;  // campaign_started's wall_time_s, when sent [s]
  std::string reason;                   // why it ended, as its last campaign_* event says
  std::optional<double> run_started_ts; // the running run's campaign_started, unix time [s]
  double ended_runs_s = 0.0;            // wall time of its runs that ended (a resumed campaign) [s]

  /// Its wall time up to `now_ts`: each run from its start to its end, the running one to now,
  /// the time between runs left out, as `report` counts it (report/throughput.hpp). A view that
  /// joined a run without its campaign_started counts from the first event it saw.
  double wall_s(double now_ts) const;
};

/// A job's best after one iteration, as iteration_finished declares it.
struct iteration_point {
  std::int64_t iteration = no_iter;
  double best_s = 0.0;            // the job's best time after the iteration [s]
  std::optional<double> speedup;  // baseline / best_s (1.0 = as fast); nullopt: no baseline yet
  bool champion = false;          // a new best was elected in this iteration
};

/// Where the job's best stands against the GPU's peaks: diagnosis_ready's (or iteration_finished's)
/// roofline numbers, the latest that came.
struct roofline_position {
  std::int64_t iteration = no_iter;
  std::optional<double> arithmetic_intensity; // FLOP per DRAM byte
  std::optional<double> achieved_flops;       // [FLOP/s]
  std::optional<double> peak_flops;           // [FLOP/s]
  std::optional<double> achieved_bandwidth;   // DRAM [bytes/s]
  std::optional<double> peak_bandwidth;       // DRAM [bytes/s]
  std::optional<double> compute_gap;          // Δc, 0 = at the compute peak (1.0 = 100 % away)
  std::optional<double> memory_gap;           // Δm
  std::optional<double> latency_gap;          // Δl
  bool near_peak = false;

  /// achieved / peak DRAM bandwidth (1.0 = at the peak), when both are known.
  std::optional<double> dram_fraction() const;
};

struct job_progress {
  std::string campaign;
  std::string name;
  run_state state = run_state::running;
  std::int64_t iteration = no_iter;      // highest iteration seen; no_iter = none yet
  std::uint64_t branches_proposed = 0;   // branch_proposed events (ablations included)
  std::uint64_t branches_measured = 0;   // candidates measured (docs/report.md): branch_ and
                                         // ablation_measured events, branch_failed naming a GPU
  std::uint64_t branches_failed = 0;     // branch_failed events
  std::optional<double> baseline_time_s; // the job's own kernel [s]
  std::optional<double> best_time_s;     // fastest time_s of a measurement or champion [s]
  std::optional<double> best_speedup;    // largest speed-up seen: a detail's `speedup`, or
                                         // baseline / a measured time (1.0 = as fast)
  std::optional<double> champion_time_s; // the best the campaign declared (champion, iteration,
                                         // job end): what summary.md reports [s]
  std::vector<iteration_point> iterations;  // by iteration, as they finished
  std::optional<roofline_position> roofline;
  std::uint64_t llm_calls = 0;           // llm_call events: requests to a language model
  std::uint64_t llm_failed_calls = 0;    // those whose outcome is not "ok"
  std::int64_t llm_tokens = 0;           // input, output, cache read and cache write tokens summed
  double llm_cost_usd = 0.0;             // dollars
  std::string stop;                      // job_finished's stop reason
  std::string failure;                   // job_failed's reason

  /// baseline / champion_time_s: the job's speed-up as the campaign reports it.
  std::optional<double> champion_speedup() const;

  // Where the baseline was proposed, to recognise its measurement.
  std::int64_t baseline_iter = no_iter;
  std::int64_t baseline_branch = no_branch;
};

struct gpu_activity {
  int gpu = no_gpu;
  std::string name;                     // "NVIDIA H100 80GB HBM3", once an event named it
  bool idle = true;                     // the latest event on it was a release (or none yet)
  std::string job;                      // job of the latest event on this GPU
  std::int64_t iter = no_iter;
  std::int64_t branch = no_branch;
  event_type last = event_type::gpu_released; // the latest event on this GPU
  std::string summary;                  // its key detail, e.g. "1.234 ms" or a failure reason
  double since_ts = 0.0;                // when it happened, unix time [s]
  std::optional<double> leased_ts;      // the open lease's start, unix time [s]; none: not leased
  double occupied_s = 0.0;              // time under closed leases [s]
  double kernel_s = 0.0;                // GPU time of the kernels its released races ran
                                        // (gpu_released's kernel_s) [s]
  std::uint64_t leases = 0;             // leases begun
  bool out_of_service = false;          // runner_failed: no more work for the rest of the campaign

  /// "occupied" (docs/report.md, "Throughput"): the share of the campaign's `wall_s` this GPU was
  /// leased to a race or a profile (the open lease counted up to now_ts), 0..1 (1.0 = 100 %).
  double occupied_share(double wall_s, double now_ts) const;
  /// "busy": the share of `wall_s` the GPU executed kernels (kernel time over wall time). A race's
  /// kernel time arrives with its release, so an open lease adds nothing yet.
  double busy_share(double wall_s) const;
};

/// An error, warning, failure or restart, with its place.
struct problem {
  std::uint64_t seq = 0;
  double ts = 0.0;      // unix time [s]
  event_type type = event_type::error;
  std::string place;    // "nightly/gemm iter 3 branch 5 gpu 1", or "" for the whole run
  std::string message;  // detail's message or reason, and what else identifies it
};

class campaign_view {
public:
  explicit campaign_view(campaign_view_options options = {});

  /// Updates the state; false (and nothing changes) when e.seq <= the last applied seq, so a
  /// replay followed by live events never counts one twice, and for heartbeats (not events of
  /// the campaign: feed/heartbeat.hpp).
  bool apply(const event& e);

  std::optional<std::uint64_t> last_seq() const { return last_seq_; }
  std::uint64_t applied() const { return applied_; } // events applied
  std::uint64_t ignored() const { return ignored_; } // events ignored as already seen
  std::uint64_t feed_dropped() const { return feed_dropped_; } // sum of feed_dropped reports
  std::uint64_t problems_seen() const { return problems_seen_; }
  std::optional<double> first_ts() const { return first_ts_; } // first event applied [s]
  std::optional<double> last_ts() const { return last_ts_; }   // latest event applied [s]
  const std::vector<campaign_status>& campaigns() const { return campaigns_; }
  const std::vector<job_progress>& jobs() const { return jobs_; }
  const std::map<int, gpu_activity>& gpus() const { return gpus_; }
  const std::deque<problem>& problems() const { return problems_; }
  const std::deque<event>& recent() const { return recent_; } // oldest first

private:
  campaign_status& campaign_for(const event& e);
  job_progress& job_for(const event& e);
  void apply_to_job(job_progress& job, const event& e, const detail_members& detail);
  void apply_to_gpu(gpu_activity& gpu, const event& e, const detail_members& detail);

  campaign_view_options options_;
  std::optional<std::uint64_t> last_seq_;
  std::uint64_t applied_ = 0;
  std::uint64_t ignored_ = 0;
  std::uint64_t feed_dropped_ = 0;
  std::uint64_t problems_seen_ = 0;
  std::optional<double> first_ts_;
  std::optional<double> last_ts_;
  std::vector<campaign_status> campaigns_; // in order of appearance
  std::vector<job_progress> jobs_;         // in order of appearance
  std::map<int, gpu_activity> gpus_;       // by GPU index
  std::deque<problem> problems_;           // the latest options_.problem_lines, oldest first
  std::deque<event> recent_;               // the latest options_.recent_events, oldest first
};

} // namespace warpforge::feed
