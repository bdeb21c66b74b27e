#pragma once
// calibration_recorder: how a calibrate campaign's parameters become store rows and feed events,
// heard from the calibration engine inside the calibrator. Each parameter is a job row
// (pending -> running -> finished | failed; a deferred one stays pending with the reason) with
// job_started and job_finished / job_failed events (docs/events.md); results.json and
// measurements.tsv stay the record of the values.
//
// The store writes are synchronous (a job row's id is needed for its state changes) through a
// scoped actor of its own: the calibrator is detached, so the wait blocks its thread only. A
// write that fails is logged, not fatal: the files of the run directory hold the results.

#include "calibrate/engine/calibration_run.hpp"
#include "feed/event.hpp"
#include "foundation/vocabulary/states.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace warpforge::actors {

/// How long a store write may take before it is given up (and logged).
inline constexpr std::chrono::seconds store_write_timeout{30};

class calibration_recorder final : public calibrate::run_observer {
public:
  /// `jobs`: the job rows an earlier run made (a resume), by parameter, so they are updated
  /// rather than made again.
  calibration_recorder(caf::actor_system& system, std::int64_t campaign_id, std::map<std::string, std::int64_t> jobs);

  void parameter_started(const calibrate::parameter& what, const calibrate::gpu_slot& gpu) override;
  void parameter_finished(const calibrate::parameter_result& result, const calibrate::gpu_slot& gpu) override;
  void parameter_deferred(const calibrate::parameter& what, const std::string& reason) override;

private:
  // The parameter's job row: found (a resume, or made earlier in this run) or made now.
  std::optional<std::int64_t> job_id(const std::string& name);
  void set_state(const std::string& name, vocabulary::job_state state, const std::string& reason);
  template <class Record>
  std::optional<std::int64_t> write(const Record& record);
  void emit(feed::event_type type, const std::string& job, int gpu, std::string detail);

  caf::actor_system& system_;
  caf::scoped_actor self_;
  std::int64_t campaign_;
  std::map<std::string, std::int64_t> jobs_; // parameter -> job row
};

} // namespace warpforge::actors
