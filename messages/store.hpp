#pragma once
// store: the single SQLite writer of a run directory. Everything that must survive a crash
// arrives here as one of these records; readers (status, tail replay) open the database
// read-only on their own.

#include "feed/event.hpp"
#include "messages/atoms.hpp"
#include "messages/status.hpp"
#include "storage/rows.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::messages {

struct campaign_record {
  std::string name;
  std::string spec_path;
  std::string spec_toml;
  std::string run_dir;
  friend bool operator==(const campaign_record&, const campaign_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_record& x) {
  return f(caf::meta::type_name("campaign_record"), x.name, x.spec_path, x.spec_toml, x.run_dir);
}

struct job_record {
  std::int64_t campaign_id = 0;
  std::string name;
  std::string problem_path;
  friend bool operator==(const job_record&, const job_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_record& x) {
  return f(caf::meta::type_name("job_record"), x.campaign_id, x.name, x.problem_path);
}

struct campaign_state_change {
  std::int64_t campaign_id = 0;
  vocabulary::campaign_state state = vocabulary::campaign_state::created;
  std::string reason; // why it failed or was interrupted
  friend bool operator==(const campaign_state_change&, const campaign_state_change&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_state_change& x) {
  return f(caf::meta::type_name("campaign_state_change"), x.campaign_id, x.state, x.reason);
}

struct job_state_change {
  std::int64_t job_id = 0;
  vocabulary::job_state state = vocabulary::job_state::pending;
  std::string reason;
  friend bool operator==(const job_state_change&, const job_state_change&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_state_change& x) {
  return f(caf::meta::type_name("job_state_change"), x.job_id, x.state, x.reason);
}

/// A new iteration of a job (number counts from 1).
struct iteration_record {
  std::int64_t job_id = 0;
  std::int64_t number = 0;
  friend bool operator==(const iteration_record&, const iteration_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, iteration_record& x) {
  return f(caf::meta::type_name("iteration_record"), x.job_id, x.number);
}

/// A job's progress: iterations finished, its best and its baseline time (0: not yet known).
struct job_update {
  std::int64_t job_id = 0;
  std::int64_t iterations_done = 0;
  double best_time_s = 0;
  double baseline_time_s = 0;
  friend bool operator==(const job_update&, const job_update&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_update& x) {
  return f(caf::meta::type_name("job_update"), x.job_id, x.iterations_done, x.best_time_s,
           x.baseline_time_s);
}

/// The mutable fields of an iteration row, written together (storage::iteration_row): its state,
/// its champion once elected, whether it has finished, and the diagnosis' roofline gaps.
struct iteration_update {
  std::int64_t iteration_id = 0;
  vocabulary::iteration_state state = vocabulary::iteration_state::running;
  std::int64_t champion_branch_id = 0; // 0: none (yet)
  bool finished = false;               // true: finished_at = the store's clock now
  std::string gaps_json;               // JSON object of the gaps; empty: none
  friend bool operator==(const iteration_update&, const iteration_update&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, iteration_update& x) {
  return f(caf::meta::type_name("iteration_update"), x.iteration_id, x.state,
           x.champion_branch_id, x.finished, x.gaps_json);
}

/// A new branch of an iteration, before it has an outcome.
struct branch_record {
  std::int64_t iteration_id = 0;
  std::int64_t ordinal = 0;          // unique within the iteration
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  std::int64_t parent_branch_id = 0; // 0: none
  std::string methods_json = "[]";
  std::string defines_json = "{}";
  std::string source_path;           // relative to the run directory
  friend bool operator==(const branch_record&, const branch_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_record& x) {
  return f(caf::meta::type_name("branch_record"), x.iteration_id, x.ordinal, x.kind,
           x.parent_branch_id, x.methods_json, x.defines_json, x.source_path);
}

/// A branch's verdict (and why, when it is not passed).
struct branch_outcome_change {
  std::int64_t branch_id = 0;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::string detail;
  friend bool operator==(const branch_outcome_change&, const branch_outcome_change&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_outcome_change& x) {
  return f(caf::meta::type_name("branch_outcome_change"), x.branch_id, x.outcome, x.detail);
}

/// One timing series of a branch on one GPU (the columns of storage::measurement_row).
struct measurement_record {
  std::int64_t branch_id = 0;
  std::int64_t gpu = 0;
  std::string gpu_name;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
  double median_s = 0;
  double mean_s = 0;
  double stddev_s = 0;
  double cv = 0;
  double ci95_low_s = 0;
  double ci95_high_s = 0;
  double min_s = 0;
  std::int64_t samples = 0;
  double sm_clock_mhz = 0; // 0: unknown
  friend bool operator==(const measurement_record&, const measurement_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, measurement_record& x) {
  return f(caf::meta::type_name("measurement_record"), x.branch_id, x.gpu, x.gpu_name, x.mode,
           x.median_s, x.mean_s, x.stddev_s, x.cv, x.ci95_low_s, x.ci95_high_s, x.min_s,
           x.samples, x.sm_clock_mhz);
}

using store_actor = caf::typed_actor<
  caf::replies_to<campaign_record>::with<std::int64_t>, // new campaign row → its id
  caf::replies_to<job_record>::with<std::int64_t>,      // new job row → its id
  caf::reacts_to<campaign_state_change>,
  caf::reacts_to<job_state_change>,
  caf::replies_to<iteration_record>::with<std::int64_t>,   // new iteration row → its id
  caf::reacts_to<job_update>,
  caf::reacts_to<iteration_update>,                        // an iteration's state, champion, gaps
  caf::replies_to<branch_record>::with<std::int64_t>,      // new branch row → its id
  caf::reacts_to<branch_outcome_change>,
  caf::replies_to<measurement_record>::with<std::int64_t>, // new measurement row → its id
  caf::reacts_to<feed::event>,                          // persist one feed event (seq given)
  caf::replies_to<next_seq_atom>::with<std::int64_t>,   // where the feed's seq counter resumes
  caf::replies_to<flush_atom>::with<std::int64_t>,      // barrier: all before it is durable; → rows written
  caf::reacts_to<stop_atom>,                            // quit after everything queued before
  status_handler>;

} // namespace warpforge::messages
