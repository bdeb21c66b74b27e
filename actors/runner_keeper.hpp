#pragma once
// runner_keeper: one GPU's warpforge-runner, kept alive. The gpu_worker actor's logic without
// the actor, so it is tested against a runner that crashes or hangs on purpose.
//
//   runner_keeper keeper{options, [](const runner_event& e) { publish(e); }};
//   auto result = keeper.run(race, std::chrono::seconds{30});  // complete: a verdict per kernel
//   auto counters = keeper.profile(profile, std::chrono::seconds{300}); // the same, for metrics
//
// Two kinds of runner death, treated differently:
//   - a kernel's doing: a hung kernel (the runner's kernel watchdog answers timeout and the
//     runner exits; or, as a backstop, the reply deadline passes and the runner is killed) or a
//     lost CUDA context (the runner answers runtime_error and exits). Expected; a fresh runner
//     starts at once, no budget spent. When the runner names the kernel (ended_by), the kernels
//     of the race it left without a verdict run again on the fresh runner.
//   - anything else: the runner crashed mid-request, died idle, or would not start. Counted in a
//     crash_budget (the supervisor's arithmetic and [supervision] policy): restart n waits
//     backoff_delay(n); more than max_restarts in the window and the keeper gives up: the GPU is
//     out of service and every later request is answered not_run with the reason.
// Every start, restart and give-up is a runner_event (the worker publishes them on the feed).

#include "actors/supervisor.hpp"
#include "config/supervision_policy.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/runner/race_request.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/runner_client.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace warpforge::actors {

struct runner_event {
  enum class kind { started, restarted, failed };
  kind what = kind::started;
  std::int64_t pid = 0;              // the new runner's pid (started, restarted)
  std::string reason;                // why the last one went (restarted, failed)
  std::chrono::milliseconds backoff{0}; // waited before this start
};

struct runner_keeper_options {
  gpu::runner_options runner; // executable, CUDA_VISIBLE_DEVICES pinning, start timeout
  config::supervision_policy restarts;
};

class runner_keeper {
public:
  using event_sink = std::function<void(const runner_event&)>;

  runner_keeper(runner_keeper_options options, event_sink on_event);

  /// Starts the runner when none is alive (after the back-off its last crash earned). False
  /// once the keeper has given up.
  bool ensure_running();

  /// Runs a race until every kernel has its verdict. `watchdog` is each kernel's share of the
  /// reply deadline (the deadline is watchdog x the kernels still to run). When the runner ends
  /// on a kernel's fault or hang (the reply says which: ended_by), the kernels it left not_run
  /// run again on a fresh runner, as a race of their own. A runner that dies without saying why
  /// (a crash, the reply deadline, an unreadable reply) gives every kernel still without a
  /// verdict that error's outcome (gpu::outcome_of) and the error's text. The result then is
  /// complete, in the request's order; its ended_by is empty and runner_exits false (the keeper
  /// dealt with them; notes say what happened), and its phase times add up the attempts'.
  /// The error: no runner could be started for the first attempt (nothing ran).
  expected<gpu::race_result, gpu::runner_error> run(const gpu::race_request& request,
                                                    std::chrono::milliseconds watchdog);

  /// Profiles one launch (CUPTI range profiler in the runner) with `watchdog` as the reply
  /// deadline; the same start, watchdog and runner-death handling as run(). A status other than
  /// ok (counters_unavailable, ...) is a result, not an error.
  expected<gpu::profile_result, gpu::runner_error> profile(const gpu::profile_request& request,
                                                           std::chrono::milliseconds watchdog);
  /// Profiles several launches in one batch (one range profiler session), likewise; `watchdog`
  /// is the whole batch's reply deadline.
  expected<std::vector<gpu::profile_result>, gpu::runner_error> profile(const std::vector<gpu::profile_request>& requests,
                                                                        std::chrono::milliseconds watchdog);

  /// What the keeper starts (the ncu fallback runs the same executable one-shot).
  const runner_keeper_options& options() const { return options_; }

  /// Stops the runner (shutdown, then kill after a grace). Idempotent.
  void stop();

  bool gave_up() const { return gave_up_; }
  const std::string& give_up_reason() const { return give_up_reason_; }
  bool running() const { return client_.has_value(); }
  std::uint32_t starts() const { return starts_; }
  std::uint32_t restarts() const { return restarts_; }
  std::uint32_t watchdog_kills() const { return watchdog_kills_; }

private:
  /// The part every request shares: start the runner when needed, `send` one request to it, and
  /// retire the runner when the request ended it (watchdog kill, crash) or the reply says it is
  /// exiting (`exit_reason` returns why, or nullopt). Defined and instantiated in the .cpp.
  template <class Result, class Send, class ExitReason>
  expected<Result, gpu::runner_error> guarded(Send send, std::chrono::milliseconds watchdog,
                                              ExitReason exit_reason);
  /// Why no runner is available (the last start's error, or the give-up reason).
  gpu::runner_error start_error() const;
  /// Drops a runner that has ended; `expected_death` says whether the candidate caused it.
  void retire(std::string reason, bool expected_death);
  void give_up(std::string reason);

  runner_keeper_options options_;
  event_sink on_event_;
  crash_budget budget_;
  std::optional<gpu::runner_client> client_;
  std::optional<std::string> pending_reason_; // why the last runner went; set until the next start
  std::optional<gpu::runner_error> last_start_error_;
  std::chrono::milliseconds pending_backoff_{0};
  bool gave_up_ = false;
  std::string give_up_reason_;
  std::uint32_t starts_ = 0;
  std::uint32_t restarts_ = 0;
  std::uint32_t watchdog_kills_ = 0;
};

} // namespace warpforge::actors
