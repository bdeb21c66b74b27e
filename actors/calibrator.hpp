#pragma once
// calibrator: one calibrate campaign, stepped through the CAF-free engine
// (calibrate/engine/calibration_run.hpp). Asked with a calibration_order, it starts the engine on
// it, gives each idle GPU the next ready parameter as a calibration_job (a detached actor whose
// trials and counters go through that GPU's gpu_worker), records each measured_parameter as it
// comes back (results, notes and reports rewritten; job rows and events through the recorder),
// hands that GPU the next one, and answers calibration_end once nothing is in flight and nothing
// is left. Without a GPU one job at a time builds and SASS-checks each benchmark.
//
// A trial that crashes or hangs is the job's business (gpu::run_program records it; the watchdog
// kills it): the parameter ends RUNTIME_ERROR or TIMEOUT and the run goes on. A job that dies
// without an answer leaves its parameter NO_DATA with the reason. A GPU whose worker is out of
// service (its lock refused) gets no more work after the parameter it said so for (NO_DATA,
// why); with none left, the run stops as interrupted (a resume measures the rest). The calibrator itself is
// supervised: its successor, asked the same order again, continues from the run directory's
// results.json like a resume (jobs of the dead one still running are not waited for).
//
// Spawned detached: its store writes wait for their row ids (calibration_recorder.hpp).

#include "actors/calibration_job.hpp"
#include "actors/calibration_recorder.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/supervisor.hpp"
#include "calibrate/catalog.hpp"
#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/engine/calibration_run.hpp"
#include "messages/calibrator.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::actors {

inline constexpr std::string_view calibrator_name = "calibrator";

/// A calibrate campaign's actors, as the command line loads it.
struct calibrator_config {
  std::shared_ptr<const calibrate::catalog> catalog;  // what there is to measure
  std::vector<gpu_worker_config> workers;             // one per GPU (keep_runner = false); empty: no GPU
  std::shared_ptr<calibrate::build_steps> host;       // nvcc and cuobjdump (a stand-in in tests)
  calibrate::benchmark_lookup benchmarks = calibrate::find_benchmark;
  job_gpu_options gpu;                                // trial watchdog, ncu pass timeout, retries
};

/// The GPU a worker of `config` measures on, as the engine names it.
calibrate::gpu_slot slot_of(const gpu::device_info& device);

/// The supervisor's children of a calibrate campaign, in start order: each GPU's gpu_worker,
/// then the calibrator (a restarted calibrator continues from results.json).
std::vector<child_spec> calibrate_children(const calibrator_config& config);

struct calibrator_state {
  static inline const char* name = "calibrator";

  struct job {
    int gpu = -1;          // the slot's ordinal
    std::string parameter; // what it measures
  };

  calibrator_config config;
  bool successor = false;                       // spawned after a crash: continue from results.json
  std::vector<calibrate::gpu_slot> slots;       // one per GPU, or one without
  std::set<int> out_of_service;                 // ordinals whose worker cannot measure: no more work
  std::map<caf::actor_addr, job> jobs;          // in flight, by the job actor
  std::unique_ptr<calibration_recorder> recorder;
  std::unique_ptr<calibrate::calibration_run> run;
  std::map<caf::actor_addr, caf::typed_response_promise<messages::calibration_end>> waiting; // one per asker
  std::optional<messages::calibration_end> end;
  bool interrupt_asked = false;
  std::int64_t handed_out = 0;
  std::int64_t recorded = 0;

  /// Starts the engine on `order`; the error says why it cannot (the notes or results.json unreadable).
  std::optional<std::string> start(const messages::calibration_order& order, caf::actor_system& system);
  /// Whether GPU `ordinal` has a job in flight.
  bool busy(int ordinal) const;
  const calibrate::gpu_slot* slot(int ordinal) const;
  messages::component_status status() const;
};

/// `successor`: spawned again after a crash (the first order is then taken as a resume).
messages::calibrator_actor::behavior_type
calibrator(messages::calibrator_actor::stateful_pointer<calibrator_state> self, calibrator_config config,
           bool successor);

} // namespace warpforge::actors
