#pragma once
// The campaign engine's bookkeeping (private to pipeline/campaign_engine*.cpp): per job its plan
// and the branches it has built, per GPU whether it is busy, per order what it was for.

#include "gpu/runner/config_race.hpp"
#include "pipeline/campaign_engine.hpp"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace warpforge::pipeline {

using branch_key = std::pair<std::int64_t, std::int64_t>; // (iteration, ordinal)

struct campaign_engine::branch_slot {
  planned_branch plan;
  std::vector<config::resolved_problem> resolved;   // its point resolved (launch, arguments) at
                                                    // each of the job's configurations; empty
                                                    // until then
  std::string cubin_path;                           // once built
  std::vector<std::string> sass_absent;             // claimed methods the SASS did not show
  std::string code_note;                            // what the code check allowed (lower precision)
  bool ended = false;                               // its outcome is recorded
};

struct campaign_engine::job_slot {
  job_setup setup;
  std::int64_t id = 0;                               // its row
  std::unique_ptr<job_plan> plan;
  std::map<branch_key, branch_slot> branches;
  std::string reference_cubin;                       // once built
  std::string reference_failure;                     // why the reference does not build
  std::set<std::int64_t> iterations_started;         // iteration_started sent
  std::set<std::int64_t> iterations_ended;           // recorded finished (or, at the job's end, failed)
  std::optional<profile_plan> pending_profile;       // asked of the plan, waiting for a GPU
  std::string problem_id;                            // the tuner cache's identity of the problem
  bool closed = false;                               // its end is recorded
  std::string failed_earlier;                        // why it failed in an earlier run (resume)
  std::string model;                                 // the GPU model (gpu_model) its times are
                                                     // measured on: set by its first race; its
                                                     // races and profiles go to GPUs of it only
  std::uint64_t races_sent = 0;                      // races given to a GPU: the job with the
                                                     // fewest takes the next idle GPU first

  bool reference_ready() const { return !reference_cubin.empty() || !reference_failure.empty(); }
};

struct campaign_engine::gpu_slot {
  gpu::device_info device;
  std::string model;                    // gpu_model(device): which jobs it may measure
  std::optional<double> peak_bandwidth; // bytes/s (the specs table, or the device's clocks)
  bool busy = false;
  double since = 0;                     // when it became busy, seconds since the start
  gpu_usage usage;                      // where its time went so far
  std::string out_of_service;           // why its worker takes no more work; empty: in service
};

/// A GPU's model as placement reads it: its name and architecture. GPUs of one model time a
/// kernel alike, so a job's races may go to any of them; a job's times are never compared across
/// models (docs/campaigns.md, "Placement").
inline std::string gpu_model(const gpu::device_info& device) {
  return device.name + " (" + device.arch() + ")";
}

// A race whose answer waits for the fresh, cold re-measure of the kernels in it that were faster
// than the physical limit (engine_gate.cpp).
struct held_race {
  race_plan race;                  // the race as the plan gave it
  bool with_incumbent = false;
  gpu::race_result result;         // its combined answer
  std::vector<std::size_t> suspects; // indices into result.kernels, in the re-measure's order
  double request_s = 0;            // seconds its requests took
};

struct campaign_engine::order {
  enum class kind { compile, compile_ahead, sass, proposal, race, profile };
  kind what = kind::compile;
  std::size_t job = 0;
  branch_key branch{-1, -1};  // compile, sass: the branch; ordinal -1: the job's reference
  race_plan race;             // race
  bool with_incumbent = false;
  profile_plan profile;       // profile
  int gpu = -1;               // race, profile
  // A race runs at each of the job's configurations in turn, on the same GPU:
  std::size_t config = 0;                   // the configuration this request is at
  std::vector<std::size_t> kernels;         // the race's kernels in this request (0: the
                                            // incumbent, when it runs), those that passed so far
  std::vector<gpu::config_race_part> parts; // the configurations answered so far
  double request_s = 0;                     // seconds their requests took
  std::optional<held_race> held;            // set: this race is the gate's fresh re-measure
  double sent_s = 0;                        // compile: when it was ordered (branch_compiled
                                            // says how long the answer took: queue and build)
  std::size_t batch = 1;                    // profile: how many profiles its GPU took with it
};

} // namespace warpforge::pipeline
