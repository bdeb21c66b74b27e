#include "pipeline/job_driver.hpp"

#include "tuning/attempt_memory.hpp"
#include "tuning/champion.hpp"
#include "tuning/point_text.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <utility>

namespace warpforge::pipeline {

namespace {

using vocabulary::branch_kind;
using vocabulary::branch_outcome;

bool passed(const branch_result& r) {
  return r.outcome == branch_outcome::passed && r.median_s.has_value();
}

// A raced result in the job's time frame: scaled by best / incumbent-in-this-race. The high end
// is scaled by best / the incumbent's low end instead, so the incumbent's own uncertainty in the
// race counts against the challenger: a challenger whose high end is below the best is then below
// the incumbent's interval in the same race (two equal kernels are not told apart by noise).
struct race_frame {
  double factor = 1.0;      // best / incumbent median
  double high_factor = 1.0; // best / incumbent low end (>= factor)
};

branch_result in_frame(branch_result r, std::optional<race_frame> frame) {
  if (!frame)
    return r;
  for (auto* t : {&r.median_s, &r.ci_low_s})
    if (*t)
      **t *= frame->factor;
  if (r.ci_high_s)
    *r.ci_high_s *= frame->high_factor;
  return r;
}

// A branch's name in the memory: a code variant's own name (its file's stem), else its point.
std::string name_of(const candidate& c) {
  if (!c.source.empty() && !c.source_name.empty())
    return std::filesystem::path{c.source_name}.stem().string();
  return tuning::canonical_text(c.point);
}

tuning::branch_result for_election(const planned_branch& b, const branch_result& r) {
  return {name_of(b.what), b.what.methods, r.outcome, r.median_s.value_or(0), r.ci_low_s, r.ci_high_s, r.detail};
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

job_driver::job_driver(std::string name, std::string problem_path, const config::budget_spec& budget,
                       std::optional<std::uint64_t> max_evaluations, candidate baseline,
                       config::champion_profiles profiles, first_proposal first)
    : name_(std::move(name)), problem_path_(std::move(problem_path)), budget_(budget), profiles_(profiles), first_(first),
      limits_(tuning::stop_limits_from(budget, max_evaluations)) {
  baseline.kind = branch_kind::baseline;
  plan({1, next_ordinal_++, std::nullopt, std::move(baseline), std::nullopt});
}

void job_driver::remember(attempt known) {
  known.iteration = 0;
  memory_.push_back(std::move(known));
}

void job_driver::plan(planned_branch b) {
  const auto key = std::pair{b.iteration, b.ordinal};
  tracked t;
  t.plan = b;
  if (b.ended) {
    t.state = branch_state::ended;
    t.result = *b.ended;
  }
  branches_[key] = std::move(t);
  newly_planned_.push_back(std::move(b));
}

std::vector<planned_branch> job_driver::take_planned() {
  return std::exchange(newly_planned_, {});
}

void job_driver::built(std::int64_t iteration, std::int64_t ordinal) {
  auto it = branches_.find({iteration, ordinal});
  if (it == branches_.end() || it->second.state != branch_state::planned)
    throw std::logic_error("job_driver::built: branch " + std::to_string(iteration) + "/" +
                           std::to_string(ordinal) + " is not waiting for its build");
  it->second.state = branch_state::built;
}

void job_driver::failed(std::int64_t iteration, std::int64_t ordinal, branch_result result) {
  auto it = branches_.find({iteration, ordinal});
  if (it == branches_.end() || it->second.state == branch_state::ended)
    throw std::logic_error("job_driver::failed: branch " + std::to_string(iteration) + "/" +
                           std::to_string(ordinal) + " is not in flight");
  it->second.state = branch_state::ended;
  it->second.result = std::move(result);
  if (phase_complete())
    end_phase();
}

std::vector<job_driver::tracked*> job_driver::current_phase() {
  std::vector<tracked*> out;
  const auto kind = phase_ == phase::baseline   ? branch_kind::baseline
                    : phase_ == phase::branches ? branch_kind::branch
                                                : branch_kind::ablation;
  if (phase_ != phase::baseline && phase_ != phase::branches && phase_ != phase::ablations)
    return out;
  for (auto& [key, t] : this_iteration())
    if (t.plan.what.kind == kind)
      out.push_back(&t);
  return out;
}

// The current iteration's branches, in ordinal order: a range of the map (earlier iterations'
// entries are dropped when they finish, so this never walks the job's history).
std::ranges::subrange<job_driver::branch_map::iterator> job_driver::this_iteration() {
  return {branches_.lower_bound({iteration_, std::numeric_limits<std::int64_t>::min()}),
          branches_.upper_bound({iteration_, std::numeric_limits<std::int64_t>::max()})};
}

bool job_driver::phase_complete() {
  auto branches = current_phase();
  return !branches.empty() &&
         std::all_of(branches.begin(), branches.end(),
                     [](const tracked* t) { return t->state == branch_state::ended; });
}

std::optional<race_plan> job_driver::next_race(bool eager, std::optional<int>) {
  auto branches = current_phase();
  std::vector<std::int64_t> ready;
  bool waiting_for_builds = false;
  for (const auto* t : branches) {
    if (t->state == branch_state::built)
      ready.push_back(t->plan.ordinal);
    waiting_for_builds = waiting_for_builds || t->state == branch_state::planned;
  }
  if (ready.empty() || (waiting_for_builds && !eager))
    return std::nullopt;
  for (auto ordinal : ready)
    branches_[{iteration_, ordinal}].state = branch_state::racing;
  return race_plan{iteration_, std::move(ready), phase_ != phase::baseline, std::nullopt};
}

void job_driver::measured(const race_plan& race, const race_outcome& outcome) {
  if (outcome.branches.size() != race.ordinals.size())
    throw std::logic_error("job_driver::measured: " + std::to_string(outcome.branches.size()) +
                           " results for a race of " + std::to_string(race.ordinals.size()));
  std::optional<race_frame> frame;
  if (race.with_incumbent && outcome.incumbent_s && *outcome.incumbent_s > 0 && best_s_) {
    frame = race_frame{*best_s_ / *outcome.incumbent_s, *best_s_ / *outcome.incumbent_s};
    if (outcome.incumbent_ci_low_s && *outcome.incumbent_ci_low_s > 0 &&
        *outcome.incumbent_ci_low_s <= *outcome.incumbent_s)
      frame->high_factor = *best_s_ / *outcome.incumbent_ci_low_s;
  }
  for (std::size_t i = 0; i < race.ordinals.size(); ++i) {
    auto it = branches_.find({race.iteration, race.ordinals[i]});
    if (it == branches_.end() || it->second.state != branch_state::racing)
      throw std::logic_error("job_driver::measured: branch " + std::to_string(race.ordinals[i]) +
                             " was not racing");
    it->second.result = in_frame(outcome.branches[i], frame);
    it->second.state = branch_state::ended;
  }
  if (phase_complete())
    end_phase();
}

void job_driver::end_phase() {
  evaluations_this_iteration_ += current_phase().size();
  switch (phase_) {
  case phase::baseline: return end_baseline();
  case phase::branches: return end_branches();
  case phase::ablations: return end_ablations();
  default: return;
  }
}

// The phase's branches go into the memory together, by ordinal (the map's order).
void job_driver::remember_phase(branch_kind kind, const std::vector<std::string>& details,
                                const std::vector<tuning::branch_verdict>& verdicts) {
  std::size_t i = 0;
  for (const auto& [key, t] : this_iteration()) {
    if (t.plan.what.kind != kind)
      continue;
    attempt a;
    a.iteration = iteration_;
    a.kind = kind;
    a.point = t.plan.what.point;
    a.methods = t.plan.what.methods;
    a.outcome = t.result.outcome;
    a.median_s = passed(t.result) ? t.result.median_s : std::nullopt;
    a.detail = i < details.size() ? details[i] : t.result.detail;
    a.ordinal = t.plan.ordinal;
    if (i < verdicts.size())
      a.verdict = verdicts[i];
    memory_.push_back(std::move(a));
    ++i;
  }
}

void job_driver::end_baseline() {
  const auto& baseline = branches_.at({iteration_, 0});
  remember_phase(branch_kind::baseline, {});
  if (!passed(baseline.result))
    return fail("the baseline (the job's own kernel at its default point) did not pass: " +
                std::string{vocabulary::to_string(baseline.result.outcome)} +
                (baseline.result.detail.empty() ? "" : ": " + baseline.result.detail));
  baseline_s_ = best_s_ = baseline.result.median_s;
  best_ = baseline.plan;
  if (profiles_ != config::champion_profiles::each)
    return enter_proposing();
  phase_ = phase::profiling;
  asked_ = false;
}

void job_driver::end_branches() {
  std::vector<const tracked*> branches;
  std::vector<tuning::branch_result> results;
  for (const auto& [key, t] : this_iteration())
    if (t.plan.what.kind == branch_kind::branch) {
      branches.push_back(&t);
      results.push_back(for_election(t.plan, t.result));
    }
  const auto election = tuning::elect_champion(best_s_, results, budget_.noise_threshold);
  std::vector<std::string> lines;
  std::vector<tuning::branch_verdict> verdicts;
  for (const auto& record : tuning::record_attempts(election, results)) {
    lines.push_back(record.line());
    verdicts.push_back(record.verdict);
  }
  remember_phase(branch_kind::branch, lines, verdicts);
  std::vector<std::string> memory_lines;
  for (std::size_t i = 0; i < lines.size(); ++i)
    memory_lines.push_back(results[i].name + ": " + lines[i]);

  if (!election.champion)
    return finish_iteration(std::nullopt, {}, std::move(memory_lines));
  const auto& champion = *branches[*election.champion];
  champion_ = champion.plan.ordinal;
  best_s_ = champion.result.median_s;
  best_ = champion.plan;
  // The champion's leave-one-out variants. A method the SASS shows absent is judged without a
  // measurement (implementation_failed): its row ends at once.
  for (const auto& ablation : champion.plan.what.ablations) {
    if (ablation.methods.empty())
      continue;
    planned_branch b{iteration_, next_ordinal_++, champion.plan.ordinal, ablation, std::nullopt};
    b.what.kind = branch_kind::ablation;
    if (contains(champion.result.sass_absent, ablation.methods.front()))
      b.ended = branch_result{branch_outcome::not_run, std::nullopt, std::nullopt, std::nullopt,
                              "implementation_failed: the SASS shows no sign of " + ablation.methods.front(),
                              {ablation.methods.front()}};
    plan(std::move(b));
  }
  // Methods SASS showed absent but with no variant still get their verdict.
  for (const auto& method : champion.result.sass_absent) {
    const bool has_variant = std::any_of(champion.plan.what.ablations.begin(), champion.plan.what.ablations.end(),
                                         [&](const candidate& c) { return !c.methods.empty() && c.methods.front() == method; });
    if (has_variant || !contains(champion.plan.what.methods, method))
      continue;
    candidate absent;
    absent.kind = branch_kind::ablation;
    absent.point = champion.plan.what.point;
    absent.methods = {method};
    plan({iteration_, next_ordinal_++, champion.plan.ordinal, absent,
          branch_result{branch_outcome::not_run, std::nullopt, std::nullopt, std::nullopt,
                        "implementation_failed: the SASS shows no sign of " + method, {method}}});
  }
  phase_ = phase::ablations;
  iteration_memory_ = std::move(memory_lines);
  if (current_phase().empty()) // no method to judge
    return finish_iteration(champion_, {}, std::exchange(iteration_memory_, {}));
  if (phase_complete()) // every method was judged without a measurement
    end_ablations();
}

void job_driver::end_ablations() {
  std::vector<tuning::ablation_result> ablations;
  std::vector<std::string> details;
  for (const auto& [key, t] : this_iteration())
    if (t.plan.what.kind == branch_kind::ablation) {
      const auto& method = t.plan.what.methods.front();
      ablations.push_back({method, t.result.outcome, t.result.median_s.value_or(0),
                           t.plan.ended.has_value() && !t.result.sass_absent.empty()});
    }
  auto methods = tuning::attribute_methods(*best_s_, ablations, budget_.noise_threshold);
  for (const auto& m : methods)
    details.push_back(std::string{tuning::to_string(m.verdict)} + ": " + m.note);
  remember_phase(branch_kind::ablation, details);
  finish_iteration(champion_, std::move(methods), std::exchange(iteration_memory_, {}));
}

void job_driver::finish_iteration(std::optional<std::int64_t> champion,
                                  std::vector<tuning::method_attribution> methods,
                                  std::vector<std::string> lines) {
  iteration_summary summary;
  summary.iteration = iteration_;
  summary.champion = champion;
  summary.best_s = best_s_;
  summary.methods = std::move(methods);
  summary.memory = std::move(lines);
  finished_.push_back(std::move(summary));
  progress_ = tuning::after_iteration(progress_, champion.has_value(), evaluations_this_iteration_);
  evaluations_this_iteration_ = 0;
  champion_.reset();
  // The iteration's branches are in the memory and the summary now: keeping them would make the
  // job's footprint grow with every iteration (best_ is a copy).
  branches_.erase(branches_.begin(), this_iteration().end());
  ++iteration_;
  next_ordinal_ = 0;
  // An unchanged best keeps its diagnosis.
  if (!champion || profiles_ != config::champion_profiles::each)
    return enter_proposing();
  phase_ = phase::profiling;
  asked_ = false;
}

// The next proposal is due; the first one may have been asked ahead, while the baseline raced.
void job_driver::enter_proposing() {
  phase_ = phase::proposing;
  asked_ = false;
  switch (std::exchange(ahead_, ahead::none)) {
  case ahead::none: return;
  case ahead::asked: asked_ = true; return; // still out: its answer is this phase's
  case ahead::exhausted:
    progress_.space_exhausted = true;
    return finish(tuning::stop_reason::space_exhausted);
  case ahead::failed:
    return fail("the proposer could not propose iteration " + std::to_string(iteration_) + ": " +
                std::exchange(ahead_failure_, {}));
  case ahead::accepted:
    phase_ = phase::branches;
    if (phase_complete()) // every candidate was a duplicate
      end_phase();
    return;
  }
}

std::optional<profile_plan> job_driver::profile_due(std::optional<int>) {
  if (phase_ != phase::profiling || asked_)
    return std::nullopt;
  asked_ = true;
  return profile_plan{best_, std::nullopt};
}

// Under final, the best as it stands, while the job still races: a GPU with nothing to race
// profiles it rather than idle, and the job's end needs no profile if it stays the best.
std::optional<profile_plan> job_driver::early_profile() {
  const bool racing = phase_ == phase::proposing || phase_ == phase::branches || phase_ == phase::ablations;
  if (profiles_ != config::champion_profiles::final || !racing || early_ || diagnosed_ == key_of(best_))
    return std::nullopt;
  early_ = key_of(best_);
  return profile_plan{best_, std::nullopt, true};
}

void job_driver::profile_lost(const profile_plan& profile) {
  if (!early_ || *early_ != key_of(profile.branch))
    return;
  early_.reset();
  if (stopping_) // it stopped waiting for that one: its best is due now
    asked_ = false;
}

void job_driver::diagnosed(const profile_plan& profile, const std::optional<diagnosis_summary>& summary) {
  if (early_ && *early_ == key_of(profile.branch)) {
    early_.reset();
    if (key_of(profile.branch) == key_of(best_)) { // still the best: its diagnosis is the job's
      diagnosis_ = summary;
      diagnosed_ = key_of(best_);
    }
    if (stopping_) { // it stopped meanwhile: done if that was its best, else its best is due now
      if (diagnosed_ == key_of(best_))
        return end_as_stopped();
      asked_ = false;
    }
    return;
  }
  if (phase_ != phase::profiling)
    return;
  diagnosis_ = summary;
  diagnosed_ = key_of(profile.branch);
  if (stopping_) // final: the job's last profile
    return end_as_stopped();
  progress_.near_peak = summary && summary->diagnosed && summary->near_peak;
  enter_proposing();
}

std::optional<propose_request> job_driver::proposal_due(double elapsed_s) {
  if (phase_ == phase::baseline)
    return first_proposal_ahead(elapsed_s);
  if (phase_ != phase::proposing || asked_)
    return std::nullopt;
  progress_.elapsed_s = elapsed_s;
  if (auto why = tuning::should_stop(progress_, limits_)) {
    finish(*why);
    return std::nullopt;
  }
  asked_ = true;
  return request_for(best_.what, best_s_);
}

// The first proposal while the baseline races, for a proposer that reads no time: it gets the
// baseline as the kernel to improve on, with no time and no memory entry of it yet. A job the stop
// rule would stop now is left to stop after its baseline, as it would have. Under each, the
// baseline's diagnosis comes first: a near-peak baseline stops the job before any proposal.
std::optional<propose_request> job_driver::first_proposal_ahead(double elapsed_s) {
  if (first_ != first_proposal::while_baseline_races || profiles_ == config::champion_profiles::each ||
      ahead_ != ahead::none)
    return std::nullopt;
  progress_.elapsed_s = elapsed_s;
  if (tuning::should_stop(progress_, limits_))
    return std::nullopt;
  ahead_ = ahead::asked;
  return request_for(branches_.at({1, 0}).plan.what, std::nullopt);
}

propose_request job_driver::request_for(const candidate& best, std::optional<double> best_s) {
  propose_request r;
  r.job = name_;
  r.problem_path = problem_path_;
  r.iteration = iteration_;
  r.branches = budget_.branches;
  r.current_best = best;
  r.best_s = best_s;
  // The best's own diagnosis only: under final an early profile may be of a best since replaced.
  r.diagnosis = diagnosed_ == key_of(best_) ? diagnosis_ : std::nullopt;
  r.first_ordinal = next_ordinal_; // accept() numbers the candidates from here
  // Only what the proposer does not hold yet (all of it for one that keeps nothing).
  const auto from = std::min(proposer_holds_, memory_.size());
  r.memory_from = static_cast<std::int64_t>(from);
  r.memory.assign(memory_.begin() + static_cast<std::ptrdiff_t>(from), memory_.end());
  memory_sent_from_ = from;
  return r;
}

void job_driver::accept(const proposal& answer) {
  // The first proposal asked ahead is taken whenever it comes; once the job is proposing, it is
  // that phase's request (enter_proposing).
  const bool first_ahead = ahead_ == ahead::asked;
  if (phase_ == phase::done || (!first_ahead && (phase_ != phase::proposing || !asked_)))
    return;
  if (first_ahead)
    ahead_ = ahead::none; // a resend asks again (proposal_due); else it is set below
  else
    asked_ = false;
  if (answer.resend_memory_from) {
    // The proposer lost what it held (restarted): ask again with the memory from where it says.
    // Only an earlier start is accepted, so this ends at a request with the whole memory.
    const auto from = static_cast<std::size_t>(std::max<std::int64_t>(0, *answer.resend_memory_from));
    if (from >= memory_sent_from_)
      return fail("the proposer asked for the memory from entry " + std::to_string(from) + " again, after it was sent from " +
                  std::to_string(memory_sent_from_));
    proposer_holds_ = from;
    return;
  }
  proposer_holds_ = static_cast<std::size_t>(std::max<std::int64_t>(0, answer.memory_held));
  if (answer.candidates.empty() && first_ahead) {
    ahead_ = ahead::exhausted;
    return;
  }
  if (answer.candidates.empty()) {
    progress_.space_exhausted = true;
    return finish(tuning::stop_reason::space_exhausted);
  }
  for (const auto& c : answer.candidates) {
    planned_branch b{iteration_, next_ordinal_++, std::nullopt, c, std::nullopt};
    b.what.kind = branch_kind::branch;
    // The same content as a branch measured before: recorded, never built or raced again.
    if (const auto& earlier = c.duplicate_of)
      b.ended = branch_result{branch_outcome::not_run, std::nullopt, std::nullopt, std::nullopt,
                              "duplicate of iteration " + std::to_string(earlier->iteration) + " branch " +
                                std::to_string(earlier->ordinal) +
                                ": the same code (comments and whitespace aside), defines and launch; not built or "
                                "measured again",
                              {}};
    plan(std::move(b));
  }
  if (first_ahead) { // they are built now and race once the baseline's phase is over
    ahead_ = ahead::accepted;
    return;
  }
  phase_ = phase::branches;
  if (phase_complete()) // every candidate was a duplicate
    end_phase();
}

void job_driver::proposal_failed(const std::string& why) {
  if (phase_ == phase::done)
    return;
  if (ahead_ == ahead::asked) { // the baseline still races: it is measured and recorded first
    ahead_ = ahead::failed;
    ahead_failure_ = why;
    return;
  }
  if (phase_ == phase::proposing)
    fail("the proposer could not propose iteration " + std::to_string(iteration_) + ": " + why);
}

void job_driver::abandon(const std::string& why) {
  if (stopping_) // its work is done: it ends as it stopped, undiagnosed
    return end_as_stopped();
  if (phase_ != phase::done)
    fail(why);
}

void job_driver::finish(tuning::stop_reason why) {
  if (profiles_ == config::champion_profiles::final && diagnosed_ != key_of(best_)) {
    // Its best is profiled first, then it is done; an early profile of it that is out stands for
    // that profile (diagnosed() ends the job, or asks for the best if the early one was of another).
    stopping_ = why;
    phase_ = phase::profiling;
    asked_ = early_.has_value();
    return;
  }
  stop_ = why;
  phase_ = phase::done;
}

void job_driver::end_as_stopped() {
  stop_ = std::exchange(stopping_, std::nullopt);
  phase_ = phase::done;
}

void job_driver::fail(std::string why) {
  ahead_ = ahead::none;
  failure_ = std::move(why);
  phase_ = phase::done;
}

std::vector<iteration_summary> job_driver::take_finished() {
  return std::exchange(finished_, {});
}

} // namespace warpforge::pipeline
