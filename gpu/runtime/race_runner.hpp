#pragma once
// One run_race request inside the runner (docs/measurement.md): load the reference and every
// kernel, check each kernel against the reference on every seed (device inputs and reference
// outputs from the workspace's cache, fresh copies per kernel, comparison on the device), load
// each kernel that passed afresh (its __device__ state back to the CUBIN's image), warm it until
// its times settle, then time them in interleaved rounds until every reported interval is narrow
// enough. The timed launches are checked too (timed_verification.hpp): in every round each
// kernel runs on the round's seed and one of its timed launches, at random, is poisoned before
// and compared after; wrong or stale output there is `inconsistent`. Runner-only
// (warpforge_gpu_runtime).
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
#include "gpu/runtime/phase_clock.hpp"
#include "gpu/runtime/timed_verification.hpp"

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

  /// What a comparison of the working buffers found wrong: one argument's report.
  struct buffer_mismatch {
    std::string arg;
    std::string what;                      // "output 'out': 3 of 64 elements ..." (the reason)
    std::optional<compare_report> compare; // an output's
    std::optional<input_check> input;      // an input's
  };

  // ---- set-up and checks (race_runner.cpp) ----
  bool load_reference();
  bool load_kernels();
  /// Kernel j's module loaded again from its CUBIN (its globals reset); false when that failed
  /// and the race cannot go on.
  bool reload_kernel(std::size_t j);
  bool check_seed(std::size_t seed_index);
  bool check_kernel(std::size_t j, std::uint64_t seed, const pristine_inputs& inputs,
                    const cached_buffers& reference);
  /// Queues the comparison of every buffer in working_ (outputs and inouts with `reference`,
  /// inputs with `inputs`) and reads the verdict: the first argument found wrong, or none.
  expected<std::optional<buffer_mismatch>, launch_failure> compare_working(const pristine_inputs& inputs,
                                                                           const cached_buffers& reference);
  /// Makes the working buffers hold seed `seed_index`'s pristine inputs and poisoned outputs
  /// (queued); false after fail_all. Before every batch: a kernel that spoiled its inputs in an
  /// unverified launch cannot spoil the next kernel's.
  bool use_seed(std::size_t seed_index);
  /// The reference's outputs for `seed`: from the cache, or computed now (null after fail_all).
  std::shared_ptr<cached_buffers> reference_outputs(std::uint64_t seed, const pristine_inputs& inputs);
  std::string reference_key(std::uint64_t seed) const;
  race_result finish();

  // ---- warm-up and rounds (race_timing.cpp) ----
  bool time_passed_kernels();
  /// Warms kernel j until its times settle; `batch` gets its samples per round.
  bool warm_up(std::size_t j, std::uint32_t& batch);
  bool run_rounds(const std::vector<std::size_t>& kernels, const std::vector<std::uint32_t>& batches);
  /// Kernel j's batch of `samples` samples in round `round`, its verified launch checked
  /// (timed_verification.hpp); the samples go to `times_s`. False when the race cannot go on;
  /// a kernel that failed (inconsistent, a fault) has its verdict.
  bool verified_batch(std::size_t j, std::uint32_t samples, std::size_t round, std::vector<double>& times_s);

  // ---- shared ----
  /// Queues `count` event-timed launches of `k` (cold mode: an L2 flush before each, outside
  /// the events), waits for the last under the watchdog (`limit_s` each), and appends each
  /// launch's seconds to `times_s`. A hang never returns (on_hung). `j`: the kernel it concerns
  /// (none: the reference).
  /// `before_last`, when given, queues work just before the last launch (before its L2 flush
  /// and start event: outside the events), e.g. a verified launch's poison.
  std::optional<launch_failure> timed_launches(std::optional<std::size_t> j, const loaded_kernel& k,
                                               void** params, std::size_t count, double limit_s,
                                               std::vector<double>& times_s,
                                               const std::function<std::optional<launch_failure>()>& before_last = {});
  /// Cold mode's L2 flush applies (the request's mode, or a fresh request).
  bool cold() const { return request_.mode == vocabulary::timing_mode::cold || request_.fresh; }
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
  phase_clock phases_; // where the request's wall went: the last note (finish())
  race_result result_;
  std::vector<bool> verdict_;                    // kernel j has its final outcome
  std::unique_ptr<loaded_kernel> reference_;
  std::string reference_image_;                  // the reference CUBIN's bytes (its cache key)
  std::vector<std::unique_ptr<loaded_kernel>> kernels_;
  std::vector<void*> working_;                   // the working buffers (the workspace's, or
                                                 // own_working_ for a fresh request)
  std::vector<device_memory> own_working_;       // a fresh request's working buffers
  std::vector<pristine_inputs> seed_inputs_;     // by seed index, from the checks
  std::vector<std::shared_ptr<cached_buffers>> seed_references_; // the reference's outputs, likewise
  verification_random random_;                   // the verified launches and poison positions
  std::unique_ptr<kernel_params> params_;        // the kernels' parameters on working_
  double candidate_limit_s_ = 0.0;               // the kernel watchdog, seconds per launch
  std::vector<cudaEvent_t> events_;              // pairs: start 2i, stop 2i + 1
};

/// Runs `request` on device 0: the whole race, or the error "cannot execute here at all" (no
/// device, no driver, the check kernels would not build), answered with status failed.
expected<race_result, std::string> execute_race(const race_request& request, const hung_race_exit& on_hung);

} // namespace warpforge::gpu
