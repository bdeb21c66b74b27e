#include "actors/job_driver.hpp"

#include "tuning/attempt_memory.hpp"
#include "tuning/point_text.hpp"

#include <algorithm>

namespace warpforge::actors {

job_driver::job_driver(std::string name, std::shared_ptr<const tuning::search_space> space,
                       std::unique_ptr<tuning::strategy> strategy, const config::budget_spec& budget,
                       std::optional<std::uint64_t> max_evaluations)
    : name_(std::move(name)), space_(std::move(space)), strategy_(std::move(strategy)), budget_(budget) {
  limits_.iterations = budget.iterations;
  limits_.patience = budget.patience;
  limits_.wall_time_s = budget.wall_time_s;
  limits_.max_evaluations = max_evaluations;
}

std::vector<planned_branch> job_driver::next(double elapsed_s) {
  if (done_ || awaited_ > 0)
    return {};
  if (!queued_.empty()) {
    awaited_ = queued_.size();
    return std::exchange(queued_, {});
  }
  if (phase_ == phase::baseline) {
    if (baseline_requested_)
      return {};
    baseline_requested_ = true;
    planned_branch baseline;
    baseline.iteration = iteration_;
    baseline.ordinal = next_ordinal_++;
    baseline.kind = vocabulary::branch_kind::baseline;
    baseline.point = space_->default_point();
    baseline.methods = space_->claimed_methods(baseline.point);
    awaited_ = 1;
    return {baseline};
  }
  return plan_iteration(elapsed_s);
}

std::vector<planned_branch> job_driver::plan_iteration(double elapsed_s) {
  progress_.elapsed_s = elapsed_s;
  if (auto reason = tuning::should_stop(progress_, limits_)) {
    done_ = true;
    stop_ = reason;
    return {};
  }
  auto points = strategy_->propose(budget_.branches, history_);
  if (points.empty()) {
    progress_.space_exhausted = true;
    done_ = true;
    stop_ = tuning::stop_reason::space_exhausted;
    return {};
  }
  std::vector<planned_branch> planned;
  for (auto& point : points) {
    planned_branch b;
    b.iteration = iteration_;
    b.ordinal = next_ordinal_++;
    b.kind = vocabulary::branch_kind::branch;
    b.methods = space_->claimed_methods(point);
    b.point = std::move(point);
    branches_.push_back({b, {}});
    planned.push_back(std::move(b));
  }
  awaited_ = planned.size();
  return planned;
}

void job_driver::replay(const std::vector<std::pair<planned_branch, branch_result>>& iteration) {
  std::vector<const std::pair<planned_branch, branch_result>*> branches;
  for (const auto& entry : iteration) {
    const auto& [branch, result] = entry;
    next_ordinal_ = std::max(next_ordinal_, branch.ordinal + 1);
    if (branch.kind == vocabulary::branch_kind::baseline) {
      baseline_requested_ = true;
      ++awaited_;
      record(branch, result);
    } else if (branch.kind == vocabulary::branch_kind::branch) {
      branches.push_back(&entry);
    }
  }
  // All of the iteration's branches are awaited before the first is recorded: the election
  // happens once, over all of them.
  for (const auto* entry : branches)
    branches_.push_back({entry->first, {}});
  awaited_ += branches.size();
  for (const auto* entry : branches)
    record(entry->first, entry->second);
  for (const auto& [branch, result] : iteration) {
    if (branch.kind != vocabulary::branch_kind::ablation)
      continue;
    std::erase_if(queued_, [&](const planned_branch& q) { return q.ordinal == branch.ordinal; });
    record(branch, result);
  }
}

void job_driver::record(const planned_branch& branch, const branch_result& result) {
  history_.record({branch.point, result.outcome, result.median_s});
  if (awaited_ > 0)
    --awaited_;
  ++evaluations_this_iteration_;
  switch (branch.kind) {
  case vocabulary::branch_kind::baseline:
    if (result.outcome != vocabulary::branch_outcome::passed || !result.median_s) {
      done_ = true;
      failure_ = "the baseline (the default point) did not pass: " +
                 std::string{vocabulary::to_string(result.outcome)} +
                 (result.detail.empty() ? "" : ": " + result.detail);
      return;
    }
    baseline_s_ = best_s_ = result.median_s;
    best_point_ = branch.point;
    phase_ = phase::branches;
    return;
  case vocabulary::branch_kind::branch: {
    for (auto& [planned, stored] : branches_)
      if (planned.ordinal == branch.ordinal)
        stored = result;
    if (awaited_ > 0)
      return;
    std::vector<tuning::branch_result> results;
    for (const auto& [planned, r] : branches_)
      results.push_back({tuning::canonical_text(planned.point), planned.methods, r.outcome,
                         r.median_s.value_or(0), r.ci_low_s, r.ci_high_s, r.detail});
    election_ = tuning::elect_champion(best_s_, results, budget_.noise_threshold);
    if (!election_.champion) {
      finish_iteration();
      return;
    }
    champion_ = election_.champion;
    const auto& [champion, champion_result] = branches_[*champion_];
    best_s_ = champion_result.median_s;
    best_point_ = champion.point;
    phase_ = phase::ablations;
    for (const auto& method : champion.methods) {
      if (std::find(champion_result.sass_absent.begin(), champion_result.sass_absent.end(), method) !=
          champion_result.sass_absent.end()) {
        planned_branch absent;
        absent.iteration = iteration_;
        absent.ordinal = next_ordinal_++;
        absent.kind = vocabulary::branch_kind::ablation;
        absent.point = champion.point;
        absent.methods = {method};
        absent.parent = champion.ordinal;
        ablations_.push_back({absent, {vocabulary::branch_outcome::not_run, {}, {}, {}, "implementation_failed: the SASS shows no sign of " + method, {method}}});
        continue;
      }
      auto variant = space_->leave_one_out(champion.point, method);
      if (!variant)
        continue; // no valid point without it: the method cannot be judged alone
      planned_branch ablation;
      ablation.iteration = iteration_;
      ablation.ordinal = next_ordinal_++;
      ablation.kind = vocabulary::branch_kind::ablation;
      ablation.point = variant->point;
      ablation.methods = {method};
      ablation.parent = champion.ordinal;
      for (const auto& t : variant->adjusted)
        ablation.note += (ablation.note.empty() ? "also changed: " : ", ") + t;
      queued_.push_back(ablation);
      ablations_.push_back({ablation, {}});
    }
    if (queued_.empty())
      finish_iteration();
    return;
  }
  case vocabulary::branch_kind::ablation:
    for (auto& [planned, stored] : ablations_)
      if (planned.ordinal == branch.ordinal)
        stored = result;
    if (awaited_ == 0 && queued_.empty())
      finish_iteration();
    return;
  }
}

void job_driver::finish_iteration() {
  iteration_summary summary;
  summary.iteration = iteration_;
  summary.best_s = best_s_;
  if (champion_) {
    summary.champion = branches_[*champion_].first.ordinal;
    std::vector<tuning::ablation_result> ablations;
    for (const auto& [planned, r] : ablations_)
      ablations.push_back({planned.methods.front(), r.outcome, r.median_s.value_or(0), !r.sass_absent.empty()});
    summary.methods = tuning::attribute_methods(*best_s_, ablations, budget_.noise_threshold);
  }
  std::vector<tuning::branch_result> results;
  for (const auto& [planned, r] : branches_)
    results.push_back({tuning::canonical_text(planned.point), planned.methods, r.outcome,
                       r.median_s.value_or(0), r.ci_low_s, r.ci_high_s, r.detail});
  if (!results.empty())
    for (const auto& attempt : tuning::record_attempts(election_, results))
      summary.memory.push_back(attempt.branch + ": " + attempt.line());
  finished_.push_back(std::move(summary));
  progress_ = tuning::after_iteration(progress_, champion_.has_value(), evaluations_this_iteration_);
  evaluations_this_iteration_ = 0;
  branches_.clear();
  ablations_.clear();
  champion_.reset();
  election_ = {};
  ++iteration_;
  next_ordinal_ = 0;
  phase_ = phase::branches;
}

std::vector<iteration_summary> job_driver::take_finished() {
  return std::exchange(finished_, {});
}

} // namespace warpforge::actors
