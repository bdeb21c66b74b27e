#pragma once
// One run_race request inside the runner (docs/measurement.md): load the reference and every
// kernel, check each kernel against the reference on every seed (device inputs and reference
// outputs from the workspace's cache, fresh copies per kernel, comparison on the device), warm
// each kernel that passed until its times settle, then time them in interleaved rounds until
// every reported interval is narrow enough. Runner-only (warpforge_gpu_runtime).
//
//   race_runner race{request, *workspace, setup_s, on_hung};
//   race_result result = race.run();       // complete: one verdict per kernel
//
// A kernel's sticky fault ends the race at once: it gets runtime_error, every kernel without a
// verdict gets not_run ("the runner ended on kernel j"), ended_by = j and runner_exits are set,
// and the runner replies, then exits (code 5). A launch that outruns the kernel watchdog goes to
// on_hung with the same shape (the kernel: timeout) and never returns (code 7).

#include "gpu/runner/race_request.hpp"
#include "gpu/runtime/device_workspace.hpp"
#include "gpu/runtime/kernel_module.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// Called with the race's result when a launch outruns the kernel watchdog. It must send the
/// reply and end the process (std::_Exit): returning into CUDA would wait on the hung kernel
/// (every free, unload and synchronize does). If it returns anyway, the process ends with
/// runner_exit_kernel_hung.
using hung_race_exit = std::function<void(const race_result&)>;

class race_runner {
public:
  race_runner(const race_request& request, device_workspace& workspace, double setup_s,
              hung_race_exit on_hung);
  race_runner(const race_runner&) = delete;
  race_runner& operator=(const race_runner&) = delete;
  ~race_runner();

  race_result run();

private:
  using steady = std::chrono::steady_clock;

  // Each step returns false when the race cannot go on (every kernel has its verdict, or the
  // runner must end); a kernel that fails on its own just gets its verdict.

  // ---- set-up and checks (race_runner.cpp) ----
  bool load_reference();
  bool load_kernels();
  bool check_seed(std::size_t seed_index);
  bool check_kernel(std::size_t j, std::uint64_t seed, const pristine_inputs& inputs,
                    const cached_buffers& reference);
  /// The reference's outputs for `seed`: from the cache, or computed now (null after fail_all).
  std::shared_ptr<cached_buffers> reference_outputs(std::uint64_t seed, const pristine_inputs& inputs);
  std::string reference_key(std::uint64_t seed) const;
  race_result finish();

  // ---- warm-up and rounds (race_timing.cpp) ----
  bool time_passed_kernels();
  /// Warms kernel j until its times settle; `batch` gets its samples per round.
  bool warm_up(std::size_t j, std::uint32_t& batch);
  bool run_rounds(const std::vector<std::size_t>& kernels, const std::vector<std::uint32_t>& batches);

  // ---- shared ----
  /// Queues `count` event-timed launches of `k` (cold mode: an L2 flush before each, outside
  /// the events), waits for the last under the watchdog (`limit_s` each), and appends each
  /// launch's seconds to `times_s`. A hang never returns (on_hung). `j`: the kernel it concerns
  /// (none: the reference).
  std::optional<launch_failure> timed_launches(std::optional<std::size_t> j, const loaded_kernel& k,
                                               void** params, std::size_t count, double limit_s,
                                               std::vector<double>& times_s);
  /// Kernel j's verdict from a failure; a sticky one ends the race (returns false then).
  bool fail_kernel(std::size_t j, const launch_failure& f);
  /// Every kernel without a verdict gets `f` (a failure of the reference or of the runner's own
  /// work, not of one kernel); runner_exits when it is sticky.
  void fail_all(const launch_failure& f);
  /// The race ends on kernel j: j's verdict is set, the rest without one get not_run.
  void end_on(std::size_t j);
  [[noreturn]] void hung(std::optional<std::size_t> j, const std::string& what, double limit_s);
  bool has_verdict(std::size_t j) const { return verdict_[j]; }
  void set_verdict(std::size_t j, vocabulary::branch_outcome outcome, std::string detail);
  std::string kernel_name(std::size_t j) const;
  bool any_pending() const;

  const race_request& request_;
  device_workspace& ws_;
  hung_race_exit on_hung_;
  steady::time_point start_;
  race_result result_;
  std::vector<bool> verdict_;                    // kernel j has its final outcome
  std::unique_ptr<loaded_kernel> reference_;
  std::string reference_image_;                  // the reference CUBIN's bytes (its cache key)
  std::vector<std::unique_ptr<loaded_kernel>> kernels_;
  std::vector<void*> working_;                   // the workspace's working buffers
  std::unique_ptr<kernel_params> params_;        // the kernels' parameters on working_
  double candidate_limit_s_ = 0.0;               // the kernel watchdog, seconds per launch
  std::vector<cudaEvent_t> events_;              // pairs: start 2i, stop 2i + 1
};

/// Runs `request` on device 0: the whole race, or the error "cannot execute here at all" (no
/// device, no driver, the check kernels would not build), answered with status failed.
expected<race_result, std::string> execute_race(const race_request& request, const hung_race_exit& on_hung);

} // namespace warpforge::gpu
