#pragma once
// job_plan: what the scheduler asks of every job, whatever it is doing. An optimize job
// (job_driver.hpp) proposes, races and elects; a bench or diagnose job (fixed_plan.hpp) measures
// the kernels it was given on every chosen GPU, and profiles them for diagnose. The scheduler
// only dispatches what a plan wants and hands back what came of it.
//
//   for (auto& b : plan.take_planned()) build(b);             // then built() / failed()
//   if (auto race = plan.next_race(eager, gpu)) measure(*race); // then measured()
//   if (auto p = plan.profile_due(gpu)) profile(*p);          // then diagnosed()
//   if (auto ask = plan.proposal_due(elapsed_s)) propose(*ask); // then accept() / proposal_failed()

#include "pipeline/branch_ref.hpp"
#include "pipeline/candidate.hpp"
#include "pipeline/proposer.hpp"
#include "tuning/attribution.hpp"
#include "tuning/stop_rule.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

/// What became of a planned branch.
struct branch_result {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::optional<double> median_s;  // seconds, when passed
  std::optional<double> ci_low_s;  // the median's 95% interval, seconds
  std::optional<double> ci_high_s;
  std::string detail;              // why, when not passed; passed at several configurations:
                                   // its median at each (config_medians_text)
  std::vector<std::string> sass_absent; // claimed methods the SASS check did not find
  friend bool operator==(const branch_result&, const branch_result&) = default;
};

/// A branch the job wants: its place in an iteration and what to build.
struct planned_branch {
  std::int64_t iteration = 1;           // 1-based
  std::int64_t ordinal = 0;             // unique within the iteration
  std::optional<std::int64_t> parent;   // an ablation: the champion's ordinal
  candidate what;
  /// Set for a branch that ends without being built or measured (an ablation of a method the
  /// SASS showed absent from the champion): record it with this result.
  std::optional<branch_result> ended;
  friend bool operator==(const planned_branch&, const planned_branch&) = default;
};

/// Built branches the job wants measured together. When `with_incumbent`, the scheduler races
/// the job's best kernel (best()) first, as the yardstick.
struct race_plan {
  std::int64_t iteration = 0;
  std::vector<std::int64_t> ordinals;
  bool with_incumbent = false;
  std::optional<int> gpu;           // the GPU it must run on; none: any free one
  friend bool operator==(const race_plan&, const race_plan&) = default;
};

/// A race's results: one per ordinal of its plan, in that order, as measured (raw seconds).
struct race_outcome {
  std::vector<branch_result> branches;
  std::optional<double> incumbent_s; // the incumbent's median in this race; none: it was not
                                     // raced or did not pass (the others then stand as measured)
  std::optional<double> incumbent_ci_low_s; // the low end of its median's interval in this race
};

/// The end of an iteration, for the store, the feed and the job's memory file.
struct iteration_summary {
  std::int64_t iteration = 0;
  std::optional<std::int64_t> champion;  // ordinal
  std::optional<double> best_s;          // after the iteration, seconds
  std::vector<tuning::method_attribution> methods;
  std::vector<std::string> memory;       // "<point>: ACCEPTED / REJECTED / FAILED ..." lines
};

/// A profile (and diagnosis) a plan wants: of which branch, on which GPU (none: any).
struct profile_plan {
  planned_branch branch;
  std::optional<int> gpu;
  bool early = false; // early_profile()'s: the best may lose its place before the answer
};

class job_plan {
public:
  virtual ~job_plan() = default;

  /// Branches planned since the last call.
  virtual std::vector<planned_branch> take_planned() = 0;
  /// A planned branch is built and ready to measure.
  virtual void built(std::int64_t iteration, std::int64_t ordinal) = 0;
  /// A planned branch ended before any GPU saw it (compile error, unresolvable point...).
  virtual void failed(std::int64_t iteration, std::int64_t ordinal, branch_result result) = 0;
  /// Built branches to measure now on `gpu` (none: no GPU here, the race is answered not_run);
  /// `eager`: the GPU is idle, so do not wait for more builds.
  virtual std::optional<race_plan> next_race(bool eager, std::optional<int> gpu) = 0;
  /// The results of a race next_race() gave.
  virtual void measured(const race_plan& race, const race_outcome& outcome) = 0;
  /// A profile wanted now on `gpu` (asked once).
  virtual std::optional<profile_plan> profile_due(std::optional<int> gpu) = 0;
  /// A profile the job would want only at its end, offered now to a GPU that has nothing else to
  /// do (asked once per best); its diagnosis then stands for the final one if the best does not
  /// change. None by default.
  virtual std::optional<profile_plan> early_profile() { return std::nullopt; }
  /// An early profile that was not answered (its GPU went out of service): not sent again, the
  /// plan may offer its best anew.
  virtual void profile_lost(const profile_plan&) {}
  /// Its diagnosis; none: no counters could be read.
  virtual void diagnosed(const profile_plan& profile, const std::optional<diagnosis_summary>& summary) = 0;
  /// A proposal wanted now (asked once); may end the job instead (the stop rule).
  virtual std::optional<propose_request> proposal_due(double elapsed_s) = 0;
  virtual void accept(const proposal& answer) = 0;
  virtual void proposal_failed(const std::string& why) = 0;
  /// The campaign cannot go on with this job (no healthy GPU is left, its own files cannot be
  /// written): it ends failed with `why`, whatever it had in flight; a job that had stopped and
  /// waited only for its final profile ends as it stopped, undiagnosed.
  virtual void abandon(const std::string& why) = 0;

  virtual bool done() const = 0;
  virtual const std::string& failure() const = 0;        // why the job failed; empty if not
  virtual std::optional<tuning::stop_reason> stop() const = 0; // why it stopped, when it did
  /// Iterations finished since the last call, oldest first.
  virtual std::vector<iteration_summary> take_finished() = 0;
  /// The job's best kernel: the incumbent of its next race.
  virtual const planned_branch& best() const = 0;
  virtual std::optional<double> best_s() const = 0;
  virtual std::optional<double> baseline_s() const = 0;
  virtual std::uint32_t iterations_done() const = 0;
};

} // namespace warpforge::pipeline
