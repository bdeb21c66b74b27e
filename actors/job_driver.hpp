#pragma once
// job_driver: one job's optimisation loop as a state machine, without actors or CUDA, so the
// scheduler stays a dispatcher and this logic is tested on recorded outcomes.
//
//   baseline (the default point, iteration 1 branch 0)
//   → per iteration: K points from the strategy → their results → champion election
//     → for each method the champion claims, its leave-one-out variant → attribution
//   → stop at a budget, after `patience` iterations without gain, at near-peak, or when the
//     space is exhausted.
//
//   job_driver job{...};
//   for (auto& b : job.next()) build_and_measure(b);     // empty while results are awaited
//   job.record(b, result);                               // each result, in any order
//   if (job.done()) report(*job.stop());

#include "config/campaign_spec.hpp"
#include "tuning/attribution.hpp"
#include "tuning/champion.hpp"
#include "tuning/search_space.hpp"
#include "tuning/stop_rule.hpp"
#include "tuning/strategy.hpp"
#include "tuning/tuning_history.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::actors {

/// A kernel variant the job wants built and measured.
struct planned_branch {
  std::int64_t iteration = 1;  // 1-based
  std::int64_t ordinal = 0;    // unique within the iteration
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  config::tunable_point point;
  std::vector<std::string> methods;      // claimed; an ablation: the one method it leaves out
  std::optional<std::int64_t> parent;    // an ablation: the champion's ordinal
  std::string note;                      // an ablation: which other tunables had to change
};

/// What became of a planned branch.
struct branch_result {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::optional<double> median_s;
  std::optional<double> ci_low_s;
  std::optional<double> ci_high_s;
  std::string detail;
  std::vector<std::string> sass_absent; // claimed methods SASS showed missing (champion check)
};

/// The end of an iteration, for the store and the feed.
struct iteration_summary {
  std::int64_t iteration = 0;
  std::optional<std::int64_t> champion;  // ordinal
  std::optional<double> best_s;          // after the iteration
  std::vector<tuning::method_attribution> methods;
  std::vector<std::string> memory;       // ACCEPTED / REJECTED / FAILED lines
};

class job_driver {
public:
  job_driver(std::string name, std::shared_ptr<const tuning::search_space> space,
             std::unique_ptr<tuning::strategy> strategy, const config::budget_spec& budget,
             std::optional<std::uint64_t> max_evaluations);

  /// Branches to start now: the baseline, a new iteration's K, or the champion's ablations.
  /// Empty while results are awaited or once done.
  std::vector<planned_branch> next(double elapsed_s);

  /// The result of a branch next() returned.
  void record(const planned_branch& branch, const branch_result& result);

  /// Replays one iteration an earlier run recorded (resume), its branches in ordinal order, as if
  /// next() had handed them out and record() had heard back. A branch that never finished comes
  /// as `interrupted`: the strategy proposes its point again first.
  void replay(const std::vector<std::pair<planned_branch, branch_result>>& iteration);

  /// A point an earlier run found invalid on this GPU (the tuner's result cache): never proposed.
  void remember_invalid(const config::tunable_point& point, vocabulary::branch_outcome outcome) {
    history_.record({point, outcome, std::nullopt});
  }

  /// The near-peak verdict of the latest diagnosis of the current best.
  void set_near_peak(bool near_peak) { progress_.near_peak = near_peak; }

  bool done() const { return done_; }
  const std::optional<tuning::stop_reason>& stop() const { return stop_; }
  const std::string& failure() const { return failure_; } // the baseline failed: why
  const std::string& name() const { return name_; }
  std::optional<double> baseline_s() const { return baseline_s_; }
  std::optional<double> best_s() const { return best_s_; }
  const config::tunable_point& best_point() const { return best_point_; }
  /// Iterations finished since the last call (for recording), oldest first.
  std::vector<iteration_summary> take_finished();
  std::int64_t iteration() const { return iteration_; }

private:
  enum class phase { baseline, branches, ablations };
  void finish_iteration();
  std::vector<planned_branch> plan_iteration(double elapsed_s);

  std::string name_;
  std::shared_ptr<const tuning::search_space> space_;
  std::unique_ptr<tuning::strategy> strategy_;
  config::budget_spec budget_;
  tuning::stop_limits limits_;
  tuning::tuning_history history_;
  tuning::job_progress progress_;

  phase phase_ = phase::baseline;
  std::int64_t iteration_ = 1;
  std::int64_t next_ordinal_ = 0;
  std::size_t awaited_ = 0;
  std::uint64_t evaluations_this_iteration_ = 0;
  bool baseline_requested_ = false;
  bool done_ = false;
  std::optional<tuning::stop_reason> stop_;
  std::string failure_;
  std::optional<double> baseline_s_;
  std::optional<double> best_s_;
  config::tunable_point best_point_;

  // The iteration in flight.
  std::vector<std::pair<planned_branch, branch_result>> branches_;
  std::vector<std::pair<planned_branch, branch_result>> ablations_;
  std::vector<planned_branch> queued_;   // ablations planned, not yet handed out
  std::optional<std::size_t> champion_; // index into branches_
  tuning::election election_;
  std::vector<iteration_summary> finished_;
};

} // namespace warpforge::actors
