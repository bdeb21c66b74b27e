#include "actors/runner_keeper.hpp"

#include "foundation/logging/logging.hpp"

#include <algorithm>
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

gpu::runner_error runner_keeper::start_error() const {
  gpu::runner_error error = last_start_error_.value_or(gpu::runner_error{});
  error.detail = give_up_reason_.empty() ? error.detail : give_up_reason_;
  return error;
}

template <class Result, class Send, class ExitReason>
expected<Result, gpu::runner_error> runner_keeper::guarded(Send send, std::chrono::milliseconds watchdog,
                                                           ExitReason exit_reason) {
  if (!ensure_running())
    return unexpected{start_error()};
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

namespace {

// Why a race's runner is ending, from its reply: the kernel that ended it, or the reference.
std::optional<std::string> race_exit_reason(const gpu::race_result& r) {
  if (!r.runner_exits)
    return std::nullopt;
  if (!r.ended_by)
    return "the runner lost its CUDA context (the reference or the runner's own work): " +
           (r.kernels.empty() ? std::string{} : r.kernels.front().detail);
  const auto& k = r.kernels.at(*r.ended_by);
  return k.outcome == vocabulary::branch_outcome::timeout
           ? "kernel watchdog: " + k.detail
           : "the runner lost its CUDA context: " + k.detail;
}

// Adds one attempt's result for the kernels `which` (request indices) into `merged`.
void merge_attempt(const gpu::race_result& attempt, const std::vector<std::size_t>& which,
                   std::size_t number, gpu::race_result& merged) {
  for (std::size_t s = 0; s < which.size(); ++s)
    merged.kernels[which[s]] = attempt.kernels[s];
  if (merged.reference_s == 0.0)
    merged.reference_s = attempt.reference_s;
  merged.watchdog_s = std::max(merged.watchdog_s, attempt.watchdog_s);
  if (attempt.rounds_wall_s > 0.0) { // clocks around the rounds that ran
    if (merged.sm_clock_hz_before == 0.0)
      merged.sm_clock_hz_before = attempt.sm_clock_hz_before;
    merged.sm_clock_hz_after = attempt.sm_clock_hz_after;
  }
  merged.inputs_s += attempt.inputs_s;
  merged.reference_wall_s += attempt.reference_wall_s;
  merged.setup_s += attempt.setup_s;
  merged.rounds_wall_s += attempt.rounds_wall_s;
  merged.wall_s += attempt.wall_s;
  for (const auto& note : attempt.notes)
    merged.notes.push_back(number == 1 ? note : "attempt " + std::to_string(number) + ": " + note);
}

} // namespace

expected<gpu::race_result, gpu::runner_error>
runner_keeper::run(const gpu::race_request& request, std::chrono::milliseconds watchdog) {
  if (!ensure_running())
    return unexpected{start_error()}; // no runner: nothing ran
  gpu::race_result merged;
  merged.kernels.resize(request.kernels.size());
  std::vector<std::size_t> pending(request.kernels.size());
  for (std::size_t k = 0; k < pending.size(); ++k)
    pending[k] = k;
  for (std::size_t attempt_number = 1; !pending.empty(); ++attempt_number) {
    gpu::race_request attempt_request = request;
    attempt_request.kernels.clear();
    for (std::size_t k : pending)
      attempt_request.kernels.push_back(request.kernels[k]);
    if (attempt_number > 1 && !ensure_running()) { // the kernels left never ran
      for (std::size_t k : pending) {
        merged.kernels[k] = gpu::kernel_result{};
        merged.kernels[k].outcome = vocabulary::branch_outcome::not_run;
        merged.kernels[k].detail = "no runner to run it again: " + start_error().to_string();
      }
      break;
    }
    const auto deadline = watchdog * static_cast<std::int64_t>(pending.size());
    auto attempt = guarded<gpu::race_result>(
      [&](gpu::runner_client& client) { return client.run_race(attempt_request, deadline); }, deadline,
      race_exit_reason);
    if (!attempt) {
      for (std::size_t k : pending) {
        merged.kernels[k] = gpu::kernel_result{};
        merged.kernels[k].outcome = gpu::outcome_of(attempt.error().kind);
        merged.kernels[k].detail = attempt.error().to_string();
      }
      break;
    }
    merge_attempt(*attempt, pending, attempt_number, merged);
    std::vector<std::size_t> again;
    if (attempt->ended_by)
      for (std::size_t s = 0; s < pending.size(); ++s)
        if (attempt->kernels[s].outcome == vocabulary::branch_outcome::not_run)
          again.push_back(pending[s]);
    if (!again.empty()) {
      const std::size_t culprit = pending[*attempt->ended_by];
      merged.notes.push_back("the runner ended on kernel " + std::to_string(culprit) + " (" +
                             std::string{to_string(merged.kernels[culprit].outcome)} + "); " +
                             std::to_string(again.size()) +
                             " kernel(s) without a verdict run again on a fresh runner (timed "
                             "apart from the kernels timed before)");
    }
    pending = std::move(again);
  }
  return merged;
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

expected<std::vector<gpu::profile_result>, gpu::runner_error>
runner_keeper::profile(const std::vector<gpu::profile_request>& requests, std::chrono::milliseconds watchdog) {
  auto ask = [&](const std::vector<gpu::profile_request>& batch) {
    return guarded<std::vector<gpu::profile_result>>(
      [&](gpu::runner_client& client) { return client.profile(batch, watchdog); }, watchdog,
      [](const std::vector<gpu::profile_result>& results) -> std::optional<std::string> {
        for (const auto& r : results)
          if (r.runner_exits)
            return "the runner lost its CUDA context while profiling: " + r.note;
        return std::nullopt;
      });
  };
  auto results = ask(requests);
  if (!results && results.error().kind == gpu::runner_error_kind::reply_timeout && requests.size() > 1) {
    // A kernel hung under the profiler and took the batch with it: each profile is asked again
    // alone, with one profile's share of the deadline, so that only the hung one is lost. Its
    // answer says it hung and carries runner_exits, so no other tool profiles it again.
    const auto one = watchdog / static_cast<long>(requests.size());
    std::vector<gpu::profile_result> alone;
    for (const auto& request : requests) {
      if (auto r = profile(request, one)) {
        alone.push_back(std::move(*r));
        continue;
      } else {
        gpu::profile_result failed;
        failed.status = gpu::profile_status::failed;
        failed.replay = request.replay;
        failed.note = "asked alone after its batch timed out: " + r.error().to_string();
        failed.runner_exits = r.error().kind == gpu::runner_error_kind::reply_timeout;
        alone.push_back(std::move(failed));
      }
    }
    return alone;
  }
  if (!results)
    return results;
  // A kernel that lost the context (or could not launch) ended its batch: the profiles it left
  // untaken are asked again, of a fresh runner after a lost context (as run() re-runs the kernels
  // a race left not run), through this same function, so that a hang among them is split as
  // above. Each round leaves out at least the kernel that ended the last (else there is none), so
  // the rounds end.
  std::vector<std::size_t> again;
  for (std::size_t i = 0; i < results->size(); ++i)
    if (gpu::left_unprofiled((*results)[i]))
      again.push_back(i);
  if (again.empty() || again.size() == requests.size()) // none left untaken, or no culprit: no round
    return results;
  std::vector<gpu::profile_request> rest;
  for (auto i : again)
    rest.push_back(requests[i]);
  const auto share = watchdog * static_cast<long>(rest.size()) / static_cast<long>(requests.size());
  if (auto retried = profile(rest, share); retried && retried->size() == rest.size())
    for (std::size_t k = 0; k < again.size(); ++k)
      (*results)[again[k]] = std::move((*retried)[k]);
  return results;
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
