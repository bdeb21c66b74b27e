// The campaign engine's resume: a job's plan is driven again through what the store holds, so
// finished work is never redone. A branch the store holds an outcome for is fed back as it ended
// (built and raced alone, or failed before a GPU saw it); a branch without one, or interrupted by
// the stop, is built and measured again under its row; each iteration's proposal comes from its proposal.json; a profile
// the job had moved past is taken as undiagnosed (only the last one is taken again).

#include "pipeline/campaign_engine.hpp"
#include "pipeline/engine_slots.hpp"

#include <filesystem>

namespace warpforge::pipeline {

namespace {

using vocabulary::branch_outcome;

// Outcomes a branch gets before any GPU sees it.
bool ended_before_a_gpu(branch_outcome outcome) {
  return outcome == branch_outcome::compile_error || outcome == branch_outcome::sass_rejected;
}

struct stored_branches {
  std::map<branch_key, const report::branch_entry*> rows;

  /// Whether iteration `n`'s proposal has rows (iteration 1 also holds the baseline, ordinal 0).
  bool proposed(std::int64_t n) const {
    for (const auto& [key, row] : rows)
      if (key.first == n && key.second >= (n == 1 ? 1 : 0))
        return true;
    return false;
  }
};

stored_branches index(const report::job_entry& stored) {
  stored_branches s;
  for (const auto& iteration : stored.iterations)
    for (const auto& b : iteration.branches)
      s.rows[{iteration.row.number, b.row.ordinal}] = &b;
  return s;
}

} // namespace

// One planned branch fed back as the store holds it; false when it must run again under its row:
// never ended, ended by the stop (interrupted: a baseline in flight included), or passed with its
// measurement lost.
bool campaign_engine::replay_branch(job_slot& job, const planned_branch& b, const report::branch_entry* entry) {
  auto& slot = job.branches.at({b.iteration, b.ordinal});
  if (b.ended) {
    slot.ended = entry != nullptr && entry->row.outcome.has_value();
    return slot.ended;
  }
  const bool lost = entry == nullptr || !entry->row.outcome || *entry->row.outcome == branch_outcome::interrupted ||
                    (*entry->row.outcome == branch_outcome::passed && !entry->best_time_s);
  if (lost)
    return false;
  slot.ended = true;
  branch_result r;
  r.outcome = *entry->row.outcome;
  r.detail = entry->row.detail;
  if (r.outcome == branch_outcome::passed) {
    r.median_s = entry->best_time_s;
    auto resolved = resolve_branch(job.setup, b.what);
    slot.resolved.clear();
    if (resolved)
      slot.resolved = std::move(*resolved);
    else
      for (const auto& at : job.setup.configs)
        slot.resolved.push_back(at.defaults);
    slot.cubin_path =
      (branch_folder(setup_.run_dir, job.setup.name, b.iteration, b.ordinal) / ("kernel-" + arch() + ".cubin")).string();
  }
  if (ended_before_a_gpu(r.outcome)) {
    job.plan->failed(b.iteration, b.ordinal, r);
    return true;
  }
  job.plan->built(b.iteration, b.ordinal);
  if (auto race = job.plan->next_race(true, gpus_.front().device.ordinal))
    job.plan->measured(*race, race_outcome{{r}, std::nullopt});
  return true;
}

void campaign_engine::replay(job_slot& job, const report::job_entry& stored) {
  const auto rows = index(stored);
  std::vector<planned_branch> pending; // to build and measure again, under their rows
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (auto planned = job.plan->take_planned(); !planned.empty(); planned = job.plan->take_planned()) {
      for (const auto& b : planned) {
        progressed = true;
        job.iterations_started.insert(b.iteration);
        auto& slot = job.branches[{b.iteration, b.ordinal}];
        slot.plan = b;
        auto row = rows.rows.find({b.iteration, b.ordinal});
        if (!replay_branch(job, b, row == rows.rows.end() ? nullptr : row->second))
          pending.push_back(b);
      }
    }
    // A profile the job moved past (the next iteration's proposal has rows) is taken as
    // undiagnosed; the one it stopped at is taken again, live.
    if (auto profile = job.plan->profile_due(gpus_.front().device.ordinal)) {
      if (rows.proposed(static_cast<std::int64_t>(job.plan->iterations_done()) + 1)) {
        job.plan->diagnosed(*profile, std::nullopt);
        progressed = true;
      } else {
        job.pending_profile = profile;
      }
    }
    // An iteration whose proposal was kept is accepted as it was; else the live run asks again.
    if (!job.pending_profile) {
      const auto next = static_cast<std::int64_t>(job.plan->iterations_done()) + 1;
      auto kept = read_proposal(setup_.run_dir, job.setup.name, next);
      if (kept && *kept && job.plan->proposal_due(0)) {
        job.plan->accept(**kept);
        progressed = true;
      }
    }
  }
  for (const auto& summary : job.plan->take_finished()) // recorded by the earlier run: not kept here
    forget_iteration(job, summary.iteration);
  if (!pending.empty()) // what the stop (or the crash) cost, said once per job
    out_.events.push_back(job_event(feed::event_type::warning, job.setup.name, feed::no_iter, feed::no_branch,
                                    feed::no_gpu,
                                    feed::detail{}
                                      .add("message", std::to_string(pending.size()) +
                                                        " branch(es) the earlier run left in flight or interrupted "
                                                        "are built and measured again")
                                      .add("component", "scheduler")
                                      .json()));
  for (const auto& b : pending)
    record_planned(job, b);
}

} // namespace warpforge::pipeline
