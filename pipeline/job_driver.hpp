#pragma once
// job_driver: one job's optimisation loop as a state machine, without actors, CUDA or files, so
// the scheduler stays a dispatcher and this logic is tested on recorded outcomes.
//
//   baseline (the job's own kernel at its default point: iteration 1, branch 0), measured alone
//     (under first_proposal::while_baseline_races, and champion profiles other than each, the
//     first proposal is asked meanwhile and its branches are built, to race once the baseline is
//     measured)
//   → profile the best and diagnose it (champion_profiles::each)
//   → per iteration: a proposal of K candidates → build each → measure them in races, each with
//     the incumbent (the job's best kernel) first, so every challenger is timed beside it
//     → champion election → the champion's leave-one-out variants (its ablations), raced with
//     the champion → attribution → profile the new best (each; only when it changed) → next
//     iteration
//   → stop at a budget, after `patience` iterations without gain, at near-peak, or when the
//     proposer has nothing new; under champion_profiles::final the best is profiled then, once,
//     and the job is done when its diagnosis (or the profiler's failure) is back; under none
//     nothing is profiled.
//
//   job_driver job{name, problem_path, budget, max_evaluations, baseline};
//   for (auto& b : job.take_planned()) build(b);            // then job.built(...) / job.failed(...)
//   if (auto race = job.next_race(gpu_idle)) measure(*race); // then job.measured(*race, outcome)
//   if (auto who = job.profile_due()) profile(*who);         // then job.diagnosed(summary)
//   if (auto ask = job.proposal_due(elapsed_s)) propose(*ask); // then job.accept(proposal)
//   if (job.done()) report(job.stop(), job.failure());
//
// Times: a challenger's median is divided by the incumbent's median in the same race and
// multiplied by the job's best time, so drift between races cancels and every time the job
// compares is in one frame (the baseline's first measurement). Results are recorded in the
// attempt memory a whole phase at a time, by ordinal, so the memory a proposer sees does not
// depend on which GPU answered first.

#include "config/campaign_spec.hpp"
#include "pipeline/job_plan.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <ranges>
#include <string>
#include <vector>

namespace warpforge::pipeline {

class job_driver final : public job_plan {
public:
  /// `baseline` is the job's own kernel at its default point (kind baseline); `profiles`, which
  /// of its bests are profiled (config::profiled_champions_of); `first`, when its proposer can
  /// make the first proposal (first_proposal_of).
  job_driver(std::string name, std::string problem_path, const config::budget_spec& budget,
             std::optional<std::uint64_t> max_evaluations, candidate baseline,
             config::champion_profiles profiles = config::champion_profiles::each,
             first_proposal first = first_proposal::after_baseline);

  /// Something an earlier run learnt (the tuner's result cache: a point known invalid on this
  /// GPU), put in the memory before anything else (iteration 0).
  void remember(attempt known);

  // job_plan. Races: all of the current phase once every branch is built, or, when `eager`,
  // those built so far. Profiles: the job's best, after the baseline and after each iteration
  // that changed it (an unchanged best keeps its diagnosis), or under `final` once, when the
  // job stops; under `final` the best may also be profiled early, in a GPU's idle time, and
  // when the job stops with that best still its best, it ends without another profile.
  // Proposals: the next iteration's, once the stop rule lets it go on; the first one while the
  // baseline races when `first` allows and no diagnosis of the baseline is awaited (not each; the
  // stop rule is asked then: a job it lets start its first iteration does, whatever the
  // baseline's race takes).
  std::vector<planned_branch> take_planned() override;
  void built(std::int64_t iteration, std::int64_t ordinal) override;
  void failed(std::int64_t iteration, std::int64_t ordinal, branch_result result) override;
  std::optional<race_plan> next_race(bool eager, std::optional<int> gpu) override;
  void measured(const race_plan& race, const race_outcome& outcome) override;
  std::optional<profile_plan> profile_due(std::optional<int> gpu) override;
  std::optional<profile_plan> early_profile() override;
  void profile_lost(const profile_plan& profile) override;
  void diagnosed(const profile_plan& profile, const std::optional<diagnosis_summary>& summary) override;
  std::optional<propose_request> proposal_due(double elapsed_s) override;
  void accept(const proposal& answer) override;
  void proposal_failed(const std::string& why) override;
  void abandon(const std::string& why) override;
  bool done() const override { return phase_ == phase::done; }
  const std::string& failure() const override { return failure_; }
  std::optional<tuning::stop_reason> stop() const override { return stop_; }
  std::vector<iteration_summary> take_finished() override;
  const planned_branch& best() const override { return best_; }
  std::optional<double> best_s() const override { return best_s_; }
  std::optional<double> baseline_s() const override { return baseline_s_; }
  std::uint32_t iterations_done() const override { return progress_.iterations; }

  const std::string& name() const { return name_; }
  const std::optional<diagnosis_summary>& diagnosis() const { return diagnosis_; }
  const std::vector<attempt>& memory() const { return memory_; }
  std::int64_t iteration() const { return iteration_; }

private:
  enum class phase { baseline, profiling, proposing, branches, ablations, done };
  enum class branch_state { planned, built, racing, ended };
  // The first proposal asked while the baseline races: out, its branches planned, it had none
  // (the job stops once the baseline is measured), or the proposer failed (the job fails then,
  // its baseline recorded); `none` when nothing was asked ahead or once the job got past it.
  enum class ahead { none, asked, accepted, exhausted, failed };
  struct tracked {
    planned_branch plan;
    branch_state state = branch_state::planned;
    branch_result result;
  };
  using branch_key = std::pair<std::int64_t, std::int64_t>; // (iteration, ordinal)
  using branch_map = std::map<branch_key, tracked>;

  static branch_key key_of(const planned_branch& b) { return {b.iteration, b.ordinal}; }

  std::ranges::subrange<branch_map::iterator> this_iteration();

  void plan(planned_branch b);
  std::optional<propose_request> first_proposal_ahead(double elapsed_s);
  propose_request request_for(const candidate& best, std::optional<double> best_s);
  void enter_proposing();
  std::vector<tracked*> current_phase();
  bool phase_complete();
  void end_phase();
  void end_baseline();
  void end_branches();
  void end_ablations();
  void finish_iteration(std::optional<std::int64_t> champion,
                        std::vector<tuning::method_attribution> methods,
                        std::vector<std::string> lines);
  void finish(tuning::stop_reason why);
  void end_as_stopped(); // final: the job that was stopping (stopping_) is done
  void fail(std::string why);
  void remember_phase(vocabulary::branch_kind kind, const std::vector<std::string>& details,
                      const std::vector<tuning::branch_verdict>& verdicts = {});

  std::string name_;
  std::string problem_path_;
  config::budget_spec budget_;
  config::champion_profiles profiles_;
  first_proposal first_;
  tuning::stop_limits limits_;
  tuning::job_progress progress_;

  phase phase_ = phase::baseline;
  bool asked_ = false;                 // the current profile / proposal request is out
  ahead ahead_ = ahead::none;
  std::string ahead_failure_;          // ahead::failed: the proposer's reason
  std::int64_t iteration_ = 1;
  std::int64_t next_ordinal_ = 0;
  std::uint64_t evaluations_this_iteration_ = 0;
  branch_map branches_;                   // the current iteration's (earlier ones are dropped)
  std::vector<planned_branch> newly_planned_;
  std::optional<std::int64_t> champion_; // this iteration's, ordinal
  std::vector<std::string> iteration_memory_; // its branches' lines, while ablations run

  std::optional<tuning::stop_reason> stop_;
  std::optional<tuning::stop_reason> stopping_; // final: why the job stops, while its best is profiled
  std::string failure_;
  std::optional<double> baseline_s_;
  std::optional<double> best_s_;
  planned_branch best_;
  std::optional<diagnosis_summary> diagnosis_;
  std::optional<branch_key> diagnosed_;   // the branch diagnosis_ is of
  std::optional<branch_key> early_;       // final: the best whose early profile is out
  std::vector<attempt> memory_;
  std::size_t proposer_holds_ = 0;    // memory entries the proposer said it keeps (sent no more)
  std::size_t memory_sent_from_ = 0;  // where the outstanding request's memory started
  std::vector<iteration_summary> finished_;
};

} // namespace warpforge::pipeline
