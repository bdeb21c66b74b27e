#pragma once
// campaign: what the command line hands the pipeline, and what it hears back at the end. The
// campaign actor owns the campaign's and its jobs' rows and events; the scheduler runs the jobs.
// The spec is parsed once, by the command; the campaign and scheduler actors are handed that
// typed spec when they are spawned (actors/runtime.hpp, pipeline_options::spec). The plan carries
// only its text, the one recorded in the campaign's row, and must be that spec's.

#include "gpu/device_report.hpp"
#include "messages/atoms.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/status.hpp"
#include "pipeline/campaign.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::messages {

struct campaign_plan {
  std::string name;                         // campaign name from the spec
  std::string spec_path;                    // where the spec was read from
  std::string spec_toml;                    // the spec's text, as validated: recorded in the row
  std::string run_dir;                      // the run directory it records into
  pipeline::campaign_mode mode = pipeline::campaign_mode::optimize;
  std::vector<std::string> candidate_paths; // bench, diagnose: kernels besides the problem's own
  vocabulary::timing_mode timing = vocabulary::timing_mode::warm; // bench --cold
  std::vector<gpu::device_info> gpus;       // the GPUs with a worker (empty: none here)
  std::string why_no_gpu;                   // when `gpus` is empty
  std::int64_t campaign_id = 0;             // its row; 0 until the campaign actor records it
  std::vector<std::int64_t> job_ids;        // the jobs' rows, in spec order (idem)
  bool resume = false;                      // continue what the store holds
  friend bool operator==(const campaign_plan&, const campaign_plan&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_plan& x) {
  return f(caf::meta::type_name("campaign_plan"), x.name, x.spec_path, x.spec_toml, x.run_dir, x.mode,
           x.candidate_paths, x.timing, x.gpus, x.why_no_gpu, x.campaign_id, x.job_ids, x.resume);
}

/// campaign: records the campaign and its jobs (or finds them, on resume), starts the scheduler
/// on them, records how it ended.
using campaign_actor = caf::typed_actor<
  caf::replies_to<campaign_plan>::with<pipeline::campaign_result>, // run (or resume) to the end
  caf::reacts_to<interrupt_atom>,                        // Ctrl-C: in-flight work ends interrupted
  caf::reacts_to<tick_atom>,                             // internal: repeat a request after a delay
  caf::reacts_to<stop_atom>,                             // quit; a running campaign is recorded
                                                         // interrupted (or failed, with the
                                                         // supervisor's reason when it gave up)
  status_handler>;

} // namespace warpforge::messages

namespace warpforge::pipeline {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gpu_usage& x) {
  return f(caf::meta::type_name("gpu_usage"), x.ordinal, x.kernel_s, x.occupied_s, x.profile_s,
           x.waited_for_compile_s, x.races, x.profiles, x.measured);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_result& x) {
  return f(caf::meta::type_name("campaign_result"), x.name, x.kind, x.reason, x.wall_s, x.gpu_busy_fraction,
           x.worker_occupancy, x.gpu_wait_for_compile_s, x.measured, x.compiled, x.gpus);
}

} // namespace warpforge::pipeline
