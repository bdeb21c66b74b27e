#pragma once
// scheduler: owns the campaign plan, hands work to the pipeline, leases GPUs, persists progress.

#include "messages/atoms.hpp"
#include "messages/campaign.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/status.hpp"

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace warpforge::messages {

using scheduler_actor = caf::typed_actor<
  caf::replies_to<campaign_plan>::with<campaign_result>, // run (or resume) to the end
  caf::reacts_to<measurement>,                          // a branch finished on some GPU
  caf::replies_to<stop_atom>::with<campaign_result>,    // Ctrl-C: record in-flight as interrupted
  status_handler>;

} // namespace warpforge::messages
