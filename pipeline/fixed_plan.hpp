#pragma once
// fixed_plan: the job of `warpforge bench` and `warpforge diagnose`. The kernels it is given (the
// problem's own first, as the baseline, then each --candidate) are built once and measured
// together in one race on every chosen GPU, so the GPUs work side by side and each compares the
// kernels under the same conditions. For diagnose, the first kernel is then profiled and
// diagnosed on every GPU where it passed. Without a GPU, every built kernel ends not_run with
// the reason: compiled and checked, nothing measured. That is also an optimize campaign's job on a
// host without a GPU: its baseline and the proposer's first proposal are built and checked.

#include "pipeline/job_plan.hpp"

#include <map>
#include <set>

namespace warpforge::pipeline {

class fixed_plan final : public job_plan {
public:
  /// `kernels[0]` is the baseline. `gpus`: ordinals to measure on (empty: none here). `profile`:
  /// diagnose the first kernel on each GPU. `first_proposal`: ask it once and build its
  /// candidates too (an optimize job's first iteration, on a host without a GPU).
  fixed_plan(std::vector<candidate> kernels, std::vector<int> gpus, bool profile,
             std::optional<propose_request> first_proposal = std::nullopt);

  std::vector<planned_branch> take_planned() override;
  void built(std::int64_t iteration, std::int64_t ordinal) override;
  void failed(std::int64_t iteration, std::int64_t ordinal, branch_result result) override;
  std::optional<race_plan> next_race(bool eager, std::optional<int> gpu) override;
  void measured(const race_plan& race, const race_outcome& outcome) override;
  std::optional<profile_plan> profile_due(std::optional<int> gpu) override;
  void diagnosed(const profile_plan& profile, const std::optional<diagnosis_summary>& summary) override;
  std::optional<propose_request> proposal_due(double elapsed_s) override;
  void accept(const proposal& answer) override;
  void proposal_failed(const std::string& why) override;
  void abandon(const std::string& why) override;
  bool done() const override;
  const std::string& failure() const override { return failure_; }
  std::optional<tuning::stop_reason> stop() const override { return std::nullopt; }
  std::vector<iteration_summary> take_finished() override { return {}; }
  const planned_branch& best() const override { return kernels_.front(); }
  std::optional<double> best_s() const override { return std::nullopt; }
  std::optional<double> baseline_s() const override { return std::nullopt; }
  std::uint32_t iterations_done() const override { return 0; }

private:
  enum class build_state { planned, built, failed };
  void note_failure(const planned_branch& b, const branch_result& r, std::optional<int> gpu);

  std::vector<planned_branch> kernels_;
  std::vector<planned_branch> newly_planned_;
  std::map<std::int64_t, build_state> builds_;   // by ordinal
  std::vector<int> gpus_;
  bool profile_ = false;
  std::optional<propose_request> first_proposal_; // until asked
  bool proposal_pending_ = false;                 // asked, not answered
  bool no_gpu_race_given_ = false;                // without a GPU: the one race (answered not_run)
  std::set<int> raced_;      // GPUs whose race was handed out
  std::set<int> measured_;   // ... and answered
  std::set<int> to_profile_; // GPUs where the first kernel passed
  std::set<int> profiled_;   // ... profile asked
  std::set<int> diagnosed_;  // ... and answered
  bool abandoned_ = false;   // ended by abandon(): done, failed, whatever was left
  std::string failure_;      // the first kernel that did not pass, where and why
};

} // namespace warpforge::pipeline
