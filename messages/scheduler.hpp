#pragma once
// scheduler: runs a campaign's jobs. It plans (each job's plan says what it wants next),
// dispatches (builds to the compilers and the SASS checker, proposals to the proposer, races to
// idle GPU workers, profiles to the profiler) and records (branch and iteration rows, events) —
// nothing else. Restarted after a crash, it rebuilds every job from the store and carries on.

#include "messages/atoms.hpp"
#include "messages/campaign.hpp"
#include "messages/hosts.hpp"
#include "messages/status.hpp"

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace warpforge::messages {

using scheduler_actor = caf::typed_actor<
  caf::replies_to<campaign_plan>::with<pipeline::campaign_result>, // run (or resume, or re-attach) to the end
  caf::reacts_to<interrupt_atom>,                        // Ctrl-C: in-flight work ends interrupted
  caf::reacts_to<tick_atom>,                             // internal: budgets and idle GPUs
  caf::reacts_to<gpu_joined>,                            // a host's GPU joined (or came back)
  caf::reacts_to<stop_atom>,                             // quit (a running campaign is interrupted)
  status_handler>;

} // namespace warpforge::messages
