#pragma once
// The one CAF type-ID block: every message type that crosses actors (and hosts). Load it with
// `cfg.add_message_types<caf::id_block::warpforge>()` on every node.

#include "messages/campaign.hpp"
#include "messages/compiler.hpp"
#include "messages/deployer.hpp"
#include "messages/diagnoser.hpp"
#include "messages/feed.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/ids.hpp"
#include "messages/llm.hpp"
#include "messages/metrics.hpp"
#include "messages/proposer.hpp"
#include "messages/sass.hpp"
#include "messages/status.hpp"
#include "messages/store.hpp"
#include "messages/supervisor.hpp"

#include <caf/type_id.hpp>

CAF_BEGIN_TYPE_ID_BLOCK(warpforge, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::branch_ref))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::counter))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::component_status))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::campaign_plan))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::campaign_result))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::define))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::candidate))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::attempt_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::propose_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::proposal))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::llm_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::llm_reply))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::resource_usage))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::compiled_candidate))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::method_check))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::checked_candidate))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::device_summary))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::run_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::timing_stats))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::correctness_report))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::measurement))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::profile_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::metric_value))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::metric_set))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::roofline_gaps))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::finding))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::diagnosis))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::deploy_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::deploy_result))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::supervision_report))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::supervision_failed))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::feed::event))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::campaign_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::job_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::campaign_state_change))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::job_state_change))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::iteration_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::job_update))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::iteration_update))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::branch_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::branch_outcome_change))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::measurement_record))
CAF_END_TYPE_ID_BLOCK(warpforge)
