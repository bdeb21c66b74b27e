#pragma once
// The one CAF type-ID block: every message type that crosses actors (and hosts). Load it with
// `cfg.add_message_types<caf::id_block::warpforge>()` on every node.

#include "messages/calibrator.hpp"
#include "messages/campaign.hpp"
#include "messages/compiler.hpp"
#include "messages/feed.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/hosts.hpp"
#include "messages/ids.hpp"
#include "messages/llm.hpp"
#include "messages/profiler.hpp"
#include "messages/proposer.hpp"
#include "messages/sass.hpp"
#include "messages/scheduler.hpp"
#include "messages/status.hpp"
#include "messages/store.hpp"
#include "messages/deployer.hpp"
#include "messages/supervisor.hpp"

#include <caf/type_id.hpp>

CAF_BEGIN_TYPE_ID_BLOCK(warpforge, caf::first_custom_type_id)
  // ids and status
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::branch_ref))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::counter))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::component_status))
  // campaign and scheduler
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::campaign_plan))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::campaign_result))
  // proposer
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::candidate))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::attempt))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::diagnosis_summary))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::propose_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::proposal))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::model_call))
  // llm
  CAF_ADD_TYPE_ID(warpforge, (warpforge::llm::chat_request))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::chat_answer))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::chat_done))
  // compiler and sass
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::compile_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::built_kernel))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::sass_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::pipeline::sass_verdict))
  // gpu_worker and profiler
  CAF_ADD_TYPE_ID(warpforge, (warpforge::gpu::device_info))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::race_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::race_reply))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::metrics_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::gpu::metric_set))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::profile_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::metrics_batch_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::metrics_batch_reply))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::profile_batch_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::profile_batch_reply))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::program_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::program_reply))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::counter_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::counter_reply))
  // calibrator
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::calibration_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::calibration_end))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::measured_parameter))
  // supervisor, feed and store
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::supervision_report))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::supervision_failed))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::feed::event))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::campaign_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::job_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::campaign_state_change))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::job_state_change))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::branch_key))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::job_update))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::iteration_update))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::branch_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::branch_outcome_change))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::measurement_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::llm_call_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::deployment_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::deploy_step_record))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::storage::deployment_result))
  // deployer
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::deploy_order))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::deploy_answer))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::deploy_done))
  // hosts (docs/hosts.md)
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::host_offer))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::remote_race))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::remote_profile_batch))
  CAF_ADD_TYPE_ID(warpforge, (warpforge::messages::gpu_joined))
CAF_END_TYPE_ID_BLOCK(warpforge)
