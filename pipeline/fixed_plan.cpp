#include "pipeline/fixed_plan.hpp"

#include <algorithm>

namespace warpforge::pipeline {

namespace {
std::string label(const planned_branch& b) {
  return b.ordinal == 0 ? "the baseline" : "candidate " + std::to_string(b.ordinal);
}
} // namespace

fixed_plan::fixed_plan(std::vector<candidate> kernels, std::vector<int> gpus, bool profile,
                       std::optional<propose_request> first_proposal)
    : gpus_(std::move(gpus)), profile_(profile), first_proposal_(std::move(first_proposal)) {
  std::int64_t ordinal = 0;
  for (auto& k : kernels) {
    k.kind = ordinal == 0 ? vocabulary::branch_kind::baseline : vocabulary::branch_kind::branch;
    kernels_.push_back({1, ordinal, std::nullopt, std::move(k), std::nullopt});
    builds_[ordinal] = build_state::planned;
    ++ordinal;
  }
  newly_planned_ = kernels_;
}

std::vector<planned_branch> fixed_plan::take_planned() {
  return std::exchange(newly_planned_, {});
}

void fixed_plan::note_failure(const planned_branch& b, const branch_result& r, std::optional<int> gpu) {
  if (!failure_.empty() || r.outcome == vocabulary::branch_outcome::passed)
    return;
  failure_ = label(b) + (gpu ? " on GPU " + std::to_string(*gpu) : std::string{}) + ": " +
             std::string{vocabulary::to_string(r.outcome)} + (r.detail.empty() ? "" : ": " + r.detail);
}

void fixed_plan::built(std::int64_t, std::int64_t ordinal) {
  builds_.at(ordinal) = build_state::built;
}

void fixed_plan::failed(std::int64_t, std::int64_t ordinal, branch_result result) {
  builds_.at(ordinal) = build_state::failed;
  note_failure(kernels_.at(static_cast<std::size_t>(ordinal)), result, std::nullopt);
}

std::optional<propose_request> fixed_plan::proposal_due(double) {
  if (!first_proposal_)
    return std::nullopt;
  proposal_pending_ = true;
  return std::exchange(first_proposal_, std::nullopt);
}

void fixed_plan::accept(const proposal& answer) {
  proposal_pending_ = false;
  auto ordinal = static_cast<std::int64_t>(kernels_.size());
  for (auto c : answer.candidates) {
    c.kind = vocabulary::branch_kind::branch;
    planned_branch b{1, ordinal, std::nullopt, std::move(c), std::nullopt};
    builds_[ordinal++] = build_state::planned;
    kernels_.push_back(b);
    newly_planned_.push_back(std::move(b));
  }
}

void fixed_plan::proposal_failed(const std::string& why) {
  proposal_pending_ = false;
  if (failure_.empty())
    failure_ = "the proposer could not propose iteration 1: " + why;
}

std::optional<race_plan> fixed_plan::next_race(bool, std::optional<int> gpu) {
  const bool building = proposal_pending_ || first_proposal_ ||
                        std::any_of(builds_.begin(), builds_.end(),
                                    [](const auto& b) { return b.second == build_state::planned; });
  if (building)
    return std::nullopt;
  std::vector<std::int64_t> ordinals;
  for (const auto& [ordinal, state] : builds_)
    if (state == build_state::built)
      ordinals.push_back(ordinal);
  if (ordinals.empty())
    return std::nullopt;
  if (gpus_.empty()) { // nothing can measure it: the scheduler answers it not_run, with why
    if (std::exchange(no_gpu_race_given_, true))
      return std::nullopt;
    return race_plan{1, ordinals, false, std::nullopt};
  }
  if (!gpu || std::find(gpus_.begin(), gpus_.end(), *gpu) == gpus_.end() || !raced_.insert(*gpu).second)
    return std::nullopt;
  return race_plan{1, ordinals, false, *gpu};
}

void fixed_plan::measured(const race_plan& race, const race_outcome& outcome) {
  const int gpu = race.gpu.value_or(-1);
  measured_.insert(gpu);
  const std::optional<int> where = race.gpu;
  for (std::size_t i = 0; i < race.ordinals.size() && i < outcome.branches.size(); ++i) {
    const auto& b = kernels_.at(static_cast<std::size_t>(race.ordinals[i]));
    note_failure(b, outcome.branches[i], where);
    if (race.ordinals[i] == 0 && outcome.branches[i].outcome == vocabulary::branch_outcome::passed)
      to_profile_.insert(gpu);
  }
}

std::optional<profile_plan> fixed_plan::profile_due(std::optional<int> gpu) {
  if (!profile_ || !gpu || !to_profile_.count(*gpu) || !profiled_.insert(*gpu).second)
    return std::nullopt;
  return profile_plan{kernels_.front(), *gpu};
}

void fixed_plan::diagnosed(const profile_plan& profile, const std::optional<diagnosis_summary>&) {
  diagnosed_.insert(profile.gpu.value_or(-1));
}

void fixed_plan::abandon(const std::string& why) {
  if (failure_.empty())
    failure_ = why;
  abandoned_ = true;
}

bool fixed_plan::done() const {
  if (abandoned_)
    return true;
  const bool building = proposal_pending_ || first_proposal_ ||
                        std::any_of(builds_.begin(), builds_.end(),
                                    [](const auto& b) { return b.second == build_state::planned; });
  if (building)
    return false;
  const bool any_built = std::any_of(builds_.begin(), builds_.end(),
                                     [](const auto& b) { return b.second == build_state::built; });
  if (!any_built)
    return true;
  if (gpus_.empty())
    return no_gpu_race_given_ && !measured_.empty();
  if (measured_.size() < gpus_.size())
    return false;
  return !profile_ || diagnosed_.size() == to_profile_.size();
}

} // namespace warpforge::pipeline
