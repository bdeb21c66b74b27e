#pragma once
// deployer: puts a finished job's champion into the user's project (deploy/README.md walks the
// steps: gate, lock, build, baseline, backup, write, build, verify, time, decide, roll back).
// A deploy builds and runs a real program for minutes, so each order is carried by a detached
// worker of its own; the worker records every step in the store and on the feed as it ends.

#include "deploy/deploy_steps.hpp"
#include "messages/inspect_support.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <optional>
#include <string>

namespace warpforge::messages {

/// Deploy `job` of the finished run at `run_dir` into the project its problem's [deploy] names.
struct deploy_order {
  std::string run_dir;  // the run the champion comes from; its store gets the deploy's rows
  std::string job;      // the job whose champion (or `source`) is written
  std::string source;   // "" = the job's champion; else a kernel file a person chose
  bool recover = false; // put back the original an unfinished deploy left instead

  friend bool operator==(const deploy_order&, const deploy_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deploy_order& x) {
  return f(caf::meta::type_name("deploy_order"), x.run_dir, x.job, x.source, x.recover);
}

/// How a deploy ended (deploy::deploy_report, less its step records).
struct deploy_answer {
  std::optional<deploy::deploy_outcome> outcome; // none: it could not start (`reason` says why)
  std::string reason;        // why it was not accepted, or why it could not start
  std::string work_dir;      // journal, backup, written text and logs ("" when it could not start)
  bool has_before = false;   // the baseline timing was taken
  double before_median = 0;  // in `unit`
  double before_spread = 0;
  bool has_after = false;    // the champion's timing was taken
  double after_median = 0;
  double after_spread = 0;
  std::string unit;          // the result_key ("kernel_ms"), or "s" for observed timing

  friend bool operator==(const deploy_answer&, const deploy_answer&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deploy_answer& x) {
  auto outcome = optional_field(x.outcome);
  return f(caf::meta::type_name("deploy_answer"), outcome, x.reason, x.work_dir, x.has_before,
           x.before_median, x.before_spread, x.has_after, x.after_median, x.after_spread, x.unit);
}

/// A worker's word to the deployer when its order has ended: what the status counts.
struct deploy_done {
  std::optional<deploy::deploy_outcome> outcome; // none: it could not start

  friend bool operator==(const deploy_done&, const deploy_done&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deploy_done& x) {
  auto outcome = optional_field(x.outcome);
  return f(caf::meta::type_name("deploy_done"), outcome);
}

using deployer_actor = caf::typed_actor<
  caf::replies_to<deploy_order>::with<deploy_answer>, // one deploy (or recovery), start to end
  caf::reacts_to<deploy_done>,                        // from a worker: its order ended
  caf::reacts_to<stop_atom>,
  status_handler>;

/// One order's worker: runs the deploy, answers, tells the deployer, and quits.
using deploy_worker_actor = caf::typed_actor<caf::replies_to<deploy_order>::with<deploy_answer>>;

} // namespace warpforge::messages
