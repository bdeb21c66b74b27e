#pragma once
// proposer: the job's diagnosis, memory and best kernel in; K candidates with their claimed
// methods and leave-one-out variants out (pipeline/proposer.hpp: one interface for the tune, llm
// and replay strategies). Its candidates go to the compiler.

#include "messages/gpu_worker.hpp" // the launch_geometry's inspect
#include "messages/ids.hpp"
#include "messages/inspect_support.hpp"
#include "messages/status.hpp"
#include "pipeline/proposer.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace warpforge::pipeline {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_place& x) {
  return f(caf::meta::type_name("branch_place"), x.iteration, x.ordinal);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate& x) {
  auto launch = messages::optional_field(x.launch);
  auto duplicate_of = messages::optional_field(x.duplicate_of);
  return f(caf::meta::type_name("candidate"), x.kind, x.point, x.source, x.source_name, x.defines, launch,
           x.methods, x.note, x.ablations, x.compiled_defines, duplicate_of);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_call& x) {
  auto error = messages::optional_field(x.error);
  return f(caf::meta::type_name("model_call"), x.purpose, x.model, error, x.input_tokens, x.output_tokens,
           x.cache_read_tokens, x.cache_write_tokens, x.cost_usd, x.seconds, x.attempts, x.transcript);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, finding_summary& x) {
  return f(caf::meta::type_name("finding_summary"), x.rule_id, x.level, x.text, x.action);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, method_suggestion& x) {
  return f(caf::meta::type_name("method_suggestion"), x.id, x.priority, x.name);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, method_exclusion& x) {
  return f(caf::meta::type_name("method_exclusion"), x.id, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, diagnosis_summary& x) {
  return f(caf::meta::type_name("diagnosis_summary"), x.of, x.gpu, x.diagnosed, x.note,
           x.gap_compute, x.gap_memory, x.gap_latency, x.near_peak, x.widest, x.budget_compute,
           x.budget_memory, x.budget_latency, x.findings, x.methods, x.excluded, x.gaps_json, x.service,
           x.why_out_of_service);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt& x) {
  auto median = messages::optional_field(x.median_s);
  auto verdict = messages::optional_field(x.verdict);
  return f(caf::meta::type_name("attempt"), x.iteration, x.kind, x.point, x.methods, x.outcome,
           median, x.detail, x.ordinal, verdict);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, propose_request& x) {
  auto best = messages::optional_field(x.best_s);
  auto diagnosis = messages::optional_field(x.diagnosis);
  return f(caf::meta::type_name("propose_request"), x.job, x.problem_path, x.iteration, x.branches,
           x.current_best, best, diagnosis, x.memory, x.memory_from, x.run_dir, x.arch, x.first_ordinal);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, proposal& x) {
  auto failure = messages::optional_field(x.failure);
  auto resend = messages::optional_field(x.resend_memory_from);
  return f(caf::meta::type_name("proposal"), x.candidates, x.note, x.calls, failure, x.memory_held, resend);
}

} // namespace warpforge::pipeline

namespace warpforge::messages {

/// proposer: one strategy (tune today; llm and replay next) behind one interface.
using proposer_actor = caf::typed_actor<
  caf::replies_to<pipeline::propose_request>::with<pipeline::proposal>, // K candidates, or an
                                                 // error naming why none could be made
  caf::reacts_to<stop_atom>,                     // quit (nothing to drain: it answers at once)
  status_handler>;

} // namespace warpforge::messages
