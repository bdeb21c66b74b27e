#include "actors/runner_keeper.hpp"

#include "logging/logging.hpp"

#include <thread>

namespace warpforge::actors {

namespace {

// The crash_budget key: a keeper tracks one runner.
constexpr const char* budget_key = "runner";

double seconds(std::chrono::milliseconds ms) {
  return std::chrono::duration<double>(ms).count();
}

} // namespace

runner_keeper::runner_keeper(runner_keeper_options options, event_sink on_event)
    : options_(std::move(options)), on_event_(std::move(on_event)), budget_(options_.restarts) {}

bool runner_keeper::ensure_running() {
  if (gave_up_)
    return false;
  if (client_ && client_->running())
    return true;
  if (client_)
    retire("the runner died while idle", false);
  while (!gave_up_) {
    if (pending_backoff_.count() > 0)
      std::this_thread::sleep_for(pending_backoff_);
    auto started = gpu::runner_client::start(options_.runner);
    if (!started) {
      last_start_error_ = started.error();
      // A missing executable does not come back by waiting.
      if (started.error().kind == gpu::runner_error_kind::not_found) {
        give_up("the runner cannot start: " + started.error().to_string());
        return false;
      }
      retire("the runner did not start: " + started.error().to_string(), false);
      continue;
    }
    client_.emplace(std::move(*started));
    ++starts_;
    runner_event e;
    e.pid = client_->pid();
    e.backoff = pending_backoff_;
    if (pending_reason_) {
      e.what = runner_event::kind::restarted;
      e.reason = *pending_reason_;
      ++restarts_;
    }
    pending_reason_.reset();
    pending_backoff_ = std::chrono::milliseconds{0};
    on_event_(e);
    return true;
  }
  return false;
}

template <class Result, class Send, class ExitReason>
expected<Result, gpu::runner_error> runner_keeper::guarded(Send send, std::chrono::milliseconds watchdog,
                                                           ExitReason exit_reason) {
  if (!ensure_running()) {
    gpu::runner_error error = last_start_error_.value_or(gpu::runner_error{});
    error.detail = give_up_reason_.empty() ? error.detail : give_up_reason_;
    return unexpected{error};
  }
  expected<Result, gpu::runner_error> result = send(*client_);
  if (!result) {
    switch (result.error().kind) {
    case gpu::runner_error_kind::reply_timeout:
      // The client already killed and reaped it: the kernel was presumed hung.
      ++watchdog_kills_;
      retire("watchdog: no reply within " + std::to_string(seconds(watchdog)) +
               " s, the runner was killed",
             true);
      break;
    case gpu::runner_error_kind::request_failed:
      break; // the runner is fine; it said why it could not do this one
    default:
      retire("the runner failed during a request: " + result.error().to_string(), false);
      break;
    }
    return result;
  }
  if (std::optional<std::string> why = exit_reason(*result))
    retire(std::move(*why), true);
  return result;
}

expected<gpu::candidate_result, gpu::runner_error>
runner_keeper::run(const gpu::candidate_request& request, std::chrono::milliseconds watchdog) {
  return guarded<gpu::candidate_result>(
    [&](gpu::runner_client& client) { return client.run_candidate(request, watchdog); }, watchdog,
    [](const gpu::candidate_result& r) -> std::optional<std::string> {
      if (!r.runner_exits)
        return std::nullopt;
      return r.outcome == vocabulary::branch_outcome::timeout
               ? "kernel watchdog: " + r.detail
               : "the runner lost its CUDA context: " + r.detail;
    });
}

expected<gpu::profile_result, gpu::runner_error>
runner_keeper::profile(const gpu::profile_request& request, std::chrono::milliseconds watchdog) {
  return guarded<gpu::profile_result>(
    [&](gpu::runner_client& client) { return client.profile(request, watchdog); }, watchdog,
    [](const gpu::profile_result& r) -> std::optional<std::string> {
      if (!r.runner_exits)
        return std::nullopt;
      return "the runner lost its CUDA context while profiling: " + r.note;
    });
}

void runner_keeper::retire(std::string reason, bool expected_death) {
  if (client_) {
    client_->stop(); // reaps a dead runner at once; stops one that is alive but unusable
    client_.reset();
  }
  pending_reason_ = std::move(reason);
  logging::get("gpu_worker")->warn("runner gone: {}", *pending_reason_);
  if (expected_death) {
    pending_backoff_ = std::chrono::milliseconds{0};
    return;
  }
  const auto decision = budget_.on_crash(budget_key, clock::now());
  if (decision.give_up) {
    give_up("the runner failed " + std::to_string(decision.crashes_in_window) + " times within " +
            std::to_string(budget_.policy().window_s) + " s; last: " + *pending_reason_);
    return;
  }
  pending_backoff_ = decision.delay;
}

void runner_keeper::give_up(std::string reason) {
  gave_up_ = true;
  give_up_reason_ = std::move(reason);
  runner_event e;
  e.what = runner_event::kind::failed;
  e.reason = give_up_reason_;
  on_event_(e);
}

void runner_keeper::stop() {
  if (client_) {
    client_->stop();
    client_.reset();
  }
}

} // namespace warpforge::actors
