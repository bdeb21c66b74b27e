#pragma once
// store: the single SQLite writer of a run directory. Everything that must survive a crash
// arrives here as one of these records; readers (status, tail replay) open the database
// read-only on their own.

#include "feed/event.hpp"
#include "messages/atoms.hpp"
#include "messages/status.hpp"
#include "storage/records.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::storage {


template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_record& x) {
  return f(caf::meta::type_name("campaign_record"), x.name, x.spec_path, x.spec_toml, x.run_dir);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_record& x) {
  return f(caf::meta::type_name("job_record"), x.campaign_id, x.name, x.problem_path);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_state_change& x) {
  return f(caf::meta::type_name("campaign_state_change"), x.campaign_id, x.state, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_state_change& x) {
  return f(caf::meta::type_name("job_state_change"), x.job_id, x.state, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_key& x) {
  return f(caf::meta::type_name("branch_key"), x.job_id, x.iteration, x.ordinal);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_update& x) {
  return f(caf::meta::type_name("job_update"), x.job_id, x.iterations_done, x.best_time_s,
           x.baseline_time_s);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, iteration_update& x) {
  return f(caf::meta::type_name("iteration_update"), x.job_id, x.number, x.state, x.champion_ordinal,
           x.finished, x.gaps_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_record& x) {
  return f(caf::meta::type_name("branch_record"), x.key, x.kind, x.parent_ordinal, x.methods_json,
           x.defines_json, x.source_path, x.duplicate_of_iteration, x.duplicate_of_ordinal);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_outcome_change& x) {
  return f(caf::meta::type_name("branch_outcome_change"), x.key, x.outcome, x.detail);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, measurement_record& x) {
  return f(caf::meta::type_name("measurement_record"), x.key, x.gpu, x.gpu_name, x.mode, x.median_s,
           x.mean_s, x.stddev_s, x.cv, x.ci95_low_s, x.ci95_high_s, x.min_s, x.samples, x.sm_clock_mhz);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_call_record& x) {
  return f(caf::meta::type_name("llm_call_record"), x.job_id, x.iteration, x.seq, x.purpose, x.model, x.outcome,
           x.input_tokens, x.output_tokens, x.cache_read_tokens, x.cache_write_tokens, x.cost_usd, x.seconds,
           x.attempts, x.transcript);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deployment_record& x) {
  return f(caf::meta::type_name("deployment_record"), x.work_dir, x.job, x.champion, x.given, x.project, x.file);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deploy_step_record& x) {
  return f(caf::meta::type_name("deploy_step_record"), x.work_dir, x.seq, x.step, x.status, x.detail, x.seconds,
           x.attempt, x.log);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deployment_result& x) {
  return f(caf::meta::type_name("deployment_result"), x.work_dir, x.outcome, x.reason, x.has_before,
           x.before_median, x.before_spread, x.has_after, x.after_median, x.after_spread, x.unit);
}

} // namespace warpforge::storage

namespace warpforge::messages {

/// store: every write is a request answered once it is durable (an id, or 0), so a writer can
/// repeat it after a store restart; the keyed writes are idempotent.
using store_actor = caf::typed_actor<
  caf::replies_to<storage::campaign_record>::with<std::int64_t>,      // new campaign row -> its id
  caf::replies_to<storage::job_record>::with<std::int64_t>,           // new job row -> its id
  caf::replies_to<storage::campaign_state_change>::with<std::int64_t>,
  caf::replies_to<storage::job_state_change>::with<std::int64_t>,
  caf::replies_to<storage::job_update>::with<std::int64_t>,
  caf::replies_to<storage::iteration_update>::with<std::int64_t>,     // -> the iteration's id
  caf::replies_to<storage::branch_record>::with<std::int64_t>,        // -> the branch's id
  caf::replies_to<storage::branch_outcome_change>::with<std::int64_t>,
  caf::replies_to<storage::measurement_record>::with<std::int64_t>,   // -> the measurement's id
  caf::replies_to<storage::llm_call_record>::with<std::int64_t>,      // -> the call's id (same key: same row)
  caf::replies_to<storage::deployment_record>::with<std::int64_t>,    // -> the deployment's id (keyed by work_dir)
  caf::replies_to<storage::deploy_step_record>::with<std::int64_t>,   // -> the step's id (work_dir, seq)
  caf::replies_to<storage::deployment_result>::with<std::int64_t>,    // how it ended -> 0
  caf::reacts_to<feed::event>,                          // persist one feed event (seq given)
  caf::replies_to<next_seq_atom>::with<std::int64_t>,   // where the feed's seq counter resumes
  caf::replies_to<flush_atom>::with<std::int64_t>,      // barrier: all before it is durable; -> rows written
  caf::reacts_to<stop_atom>,                            // quit after everything queued before
  status_handler>;

} // namespace warpforge::messages
