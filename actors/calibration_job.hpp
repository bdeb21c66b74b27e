#pragma once
// calibration_job: one parameter of a calibrate campaign measured in a detached actor of its own
// (nvcc and the trials block for minutes), by measure_parameter (calibrate/engine/measure.hpp)
// over gpu_worker_steps: the host's build and disassembly in the job, the trials and the counter
// check through the GPU's gpu_worker (program_order, counter_order), the only path to that GPU.
// It answers the calibrator that spawned it with a measured_parameter and quits.
//
// A worker that dies with the job's order (the supervisor restarts it under the same name) is
// asked again, a few times; one that does not answer by the order's deadline, or keeps dying,
// leaves the parameter NO_DATA with the reason (a later resume measures it again).

#include "calibrate/catalog.hpp"
#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/engine/counter_check.hpp"
#include "calibrate/engine/measure.hpp"
#include "calibrate/engine/run_options.hpp"
#include "messages/calibrator.hpp"
#include "messages/gpu_worker.hpp"

#include <caf/blocking_actor.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace warpforge::actors {

/// How a job talks to a GPU's worker.
struct job_gpu_options {
  std::chrono::milliseconds trial_watchdog = calibrate::default_trial_watchdog;           // per trial, then killed (TIMEOUT)
  std::chrono::milliseconds counter_pass_timeout = calibrate::default_ncu_pass_timeout;   // per ncu pass, then killed
  std::chrono::milliseconds lock_timeout = calibrate::default_lock_timeout; // a new worker may first wait this long
                                                                            // for the GPU's lock: in every deadline
  std::chrono::milliseconds reply_slack{30'000}; // per trial or pass, on top: process start-up, reading the logs
  std::uint32_t attempts = 3;                    // asks of a worker that dies with the order (then NO_DATA)
  std::chrono::milliseconds retry_delay{500};    // before asking its restarted successor
};

/// The steps of measure_parameter for one job: `host` builds and disassembles, the GPU's worker
/// (registered as gpu_worker_name(gpu.ordinal)) runs the trials and the counter check.
class gpu_worker_steps final : public calibrate::bench_steps {
public:
  gpu_worker_steps(caf::blocking_actor* self, calibrate::build_steps& host, job_gpu_options options);

  expected<calibrate::built_benchmark, calibrate::build_failure> build(const calibrate::benchmark& bench,
                                                                       const std::string& arch) override;
  expected<std::string, std::string> disassemble(const calibrate::built_benchmark& built) override;
  expected<std::vector<calibrate::trial_output>, std::string> run_trials(const calibrate::built_benchmark& built,
                                                                         const calibrate::gpu_slot& gpu,
                                                                         std::uint32_t trials,
                                                                         const std::filesystem::path& log_dir) override;
  std::string validate_counters(const calibrate::built_benchmark& built, const calibrate::parameter& what,
                                double measured, const calibrate::gpu_slot& gpu,
                                const std::filesystem::path& log_dir) override;

  /// Whether the GPU's worker said it is out of service (its GPU should get no more work).
  messages::worker_service service() const { return service_; }

private:
  caf::blocking_actor* self_;
  calibrate::build_steps& host_;
  job_gpu_options options_;
  messages::worker_service service_ = messages::worker_service::in_service;
};

/// What a job needs besides its request; shared by every job of a calibrator (and kept alive by
/// them: `catalog` is what the request's pointers point into).
struct job_context {
  std::shared_ptr<const calibrate::catalog> catalog;
  std::shared_ptr<calibrate::build_steps> host; // nvcc and cuobjdump (a stand-in in tests); thread-safe
  job_gpu_options gpu;
};

/// The job's body: measure `request`, send the result to `calibrator`, quit.
void calibration_job(caf::blocking_actor* self, messages::calibrator_actor calibrator,
                     calibrate::measure_request request, job_context context);

} // namespace warpforge::actors
