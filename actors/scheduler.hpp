#pragma once
// scheduler: runs a campaign's jobs to their end across the GPU workers. A blocking actor with
// one loop: ask every job's driver what it wants next, build it (branch row, NVRTC through the
// cache, SASS check of the claimed methods, the runner request), queue it, hand queued work to
// any idle GPU worker, and record each measurement as it comes back, from whichever GPU. So
// compilation of the next candidates runs while GPUs time the current ones, branches and
// ablations of all jobs share the GPUs, and every state change is a store row and an event.
//
// Without a GPU it compiles and SASS-checks the baseline and a first proposal of every job,
// records them not_run ("measurements need a GPU") and ends: no number is invented.
// A stop_atom (Ctrl-C) ends the loop at once: work in flight and queued is recorded
// `interrupted`, the jobs and the campaign `interrupted`, resumable.

#include "actors/job_driver.hpp"
#include "config/campaign_spec.hpp"
#include "messages/campaign.hpp"
#include "messages/gpu_worker.hpp"
#include "report/campaign_report.hpp"

#include <caf/blocking_actor.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::actors {

struct scheduler_worker {
  int ordinal = -1;
  std::string name; // "NVIDIA H100 80GB HBM3": with arch, the tuner cache's GPU key
  std::string arch; // "sm_90": what its candidates are compiled for
  messages::gpu_worker_actor handle;
  std::optional<double> peak_dram_bandwidth; // bytes/s (specs table or the device's clocks)
};

struct scheduler_config {
  config::campaign_spec spec;
  std::filesystem::path run_dir;
  std::int64_t campaign_id = 0;
  std::vector<std::int64_t> job_ids;      // the jobs' rows, in spec.jobs order
  std::vector<scheduler_worker> workers;  // empty: no GPU here
  std::string why_no_gpu;                 // when workers is empty
  std::string fallback_arch = "sm_90";    // compile target without a GPU
  std::optional<report::campaign_report> resume_from; // what an earlier run of this directory did
  std::optional<std::filesystem::path> tuner_cache;   // the cross-run result cache; none: default path
  caf::actor owner;                       // receives the campaign_result at the end
};

/// How busy the GPUs were: time inside worker requests over wall time times GPUs.
struct gpu_usage {
  double wall_s = 0;
  double busy_s = 0;           // summed over the GPUs
  std::size_t gpus = 0;
  std::uint64_t measured = 0;  // candidates the GPUs answered
  double busy_fraction() const { return wall_s > 0 && gpus > 0 ? busy_s / (wall_s * gpus) : 0; }
};

/// The scheduler's body (spawned detached with the blocking API by the run command).
void scheduler(caf::blocking_actor* self, scheduler_config config);

} // namespace warpforge::actors
