#pragma once
// runner_keeper: one GPU's warpforge-runner, kept alive. The gpu_worker actor's logic without
// the actor, so it is tested against a runner that crashes or hangs on purpose.
//
//   runner_keeper keeper{options, [](const runner_event& e) { publish(e); }};
//   auto result = keeper.run(request, std::chrono::seconds{30});  // starts the runner if needed
//   auto counters = keeper.profile(profile, std::chrono::seconds{300}); // the same, for metrics
//
// Two kinds of runner death, treated differently:
//   - the candidate's doing: a hung kernel (the runner's kernel watchdog answers timeout and the
//     runner exits; or, as a backstop, the reply deadline passes and the runner is killed) or a
//     lost CUDA context (the runner answers runtime_error and exits). Expected; a fresh runner
//     starts at once, no budget spent.
//   - anything else: the runner crashed mid-request, died idle, or would not start. Counted in a
//     crash_budget (the supervisor's arithmetic and [supervision] policy): restart n waits
//     backoff_delay(n); more than max_restarts in the window and the keeper gives up: the GPU is
//     out of service and every later request is answered not_run with the reason.
// Every start, restart and give-up is a runner_event (the worker publishes them on the feed).

#include "actors/supervisor.hpp"
#include "config/supervision_policy.hpp"
#include "expected/expected.hpp"
#include "gpu/runner/candidate_request.hpp"
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

  /// Runs one candidate with `watchdog` as the reply deadline. The runner is started first when
  /// needed; a start that fails is the error (kind spawn_failed / start_timeout / not_found).
  expected<gpu::candidate_result, gpu::runner_error> run(const gpu::candidate_request& request,
                                                         std::chrono::milliseconds watchdog);

  /// Profiles one launch (CUPTI range profiler in the runner) with `watchdog` as the reply
  /// deadline; the same start, watchdog and runner-death handling as run(). A status other than
  /// ok (counters_unavailable, ...) is a result, not an error.
  expected<gpu::profile_result, gpu::runner_error> profile(const gpu::profile_request& request,
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
