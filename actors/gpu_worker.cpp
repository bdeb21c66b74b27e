#include "actors/gpu_worker.hpp"

#include "actors/emit.hpp"
#include "actors/exceptions.hpp"
#include "logging/logging.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

namespace warpforge::actors {

namespace {

using worker_pointer = messages::gpu_worker_actor::stateful_pointer<gpu_worker_state>;

storage::branch_outcome to_branch_outcome(gpu::candidate_outcome outcome) {
  switch (outcome) {
  case gpu::candidate_outcome::passed: return storage::branch_outcome::passed;
  case gpu::candidate_outcome::incorrect: return storage::branch_outcome::incorrect;
  case gpu::candidate_outcome::runtime_error: return storage::branch_outcome::runtime_error;
  case gpu::candidate_outcome::not_supported: return storage::branch_outcome::not_supported;
  case gpu::candidate_outcome::timeout: return storage::branch_outcome::timeout;
  }
  return storage::branch_outcome::runtime_error;
}

// A runner that could not answer: the candidate's fault (timeout, crash mid-request) or not
// (the runner would not start, so the candidate never ran).
storage::branch_outcome to_branch_outcome(gpu::runner_error_kind kind) {
  switch (kind) {
  case gpu::runner_error_kind::reply_timeout: return storage::branch_outcome::timeout;
  case gpu::runner_error_kind::crashed:
  case gpu::runner_error_kind::protocol_error:
  case gpu::runner_error_kind::request_failed: return storage::branch_outcome::runtime_error;
  case gpu::runner_error_kind::not_found:
  case gpu::runner_error_kind::spawn_failed:
  case gpu::runner_error_kind::start_timeout: return storage::branch_outcome::not_run;
  }
  return storage::branch_outcome::runtime_error;
}

feed::event runner_feed_event(const runner_event& e, const messages::device_summary& device) {
  feed::event out;
  switch (e.what) {
  case runner_event::kind::started: out.type = feed::event_type::runner_started; break;
  case runner_event::kind::restarted: out.type = feed::event_type::runner_restarted; break;
  case runner_event::kind::failed: out.type = feed::event_type::runner_failed; break;
  }
  out.gpu = device.ordinal;
  feed::detail detail;
  detail.add("gpu_name", device.name);
  if (e.pid != 0)
    detail.add("pid", e.pid);
  if (!e.reason.empty())
    detail.add("reason", e.reason);
  if (e.backoff.count() > 0)
    detail.add("backoff_ms", static_cast<std::int64_t>(e.backoff.count()));
  out.detail_json = detail.json();
  return out;
}

std::string describe_failure(const gpu::candidate_result& r) {
  std::string text = r.detail;
  if (r.seed)
    text += " (seed " + std::to_string(*r.seed) + ")";
  return text;
}

} // namespace

std::string gpu_worker_name(int ordinal) {
  return "gpu." + std::to_string(ordinal);
}

messages::measurement
measurement_from(const messages::run_request& request, const messages::device_summary& device,
                 gpu::timing_mode mode,
                 const expected<gpu::candidate_result, gpu::runner_error>& result) {
  messages::measurement m;
  m.ref = request.ref;
  m.device = device;
  m.mode = mode == gpu::timing_mode::cold ? messages::timing_mode::cold : messages::timing_mode::warm;
  if (!result) {
    m.outcome = to_branch_outcome(result.error().kind);
    m.error_text = result.error().to_string();
    return m;
  }
  const auto& r = *result;
  m.outcome = to_branch_outcome(r.outcome);
  if (r.compare) {
    m.correctness.max_abs_error = r.compare->max_abs_error;
    m.correctness.max_rel_error = r.compare->max_rel_error;
    if (r.compare->first_bad_index)
      m.correctness.first_bad_index = static_cast<std::int64_t>(*r.compare->first_bad_index);
  }
  m.correctness.inputs_unchanged = !r.input || r.input->unchanged;
  if (r.outcome != gpu::candidate_outcome::passed) {
    m.error_text = describe_failure(r);
    return m;
  }
  auto request_body = gpu::decode_candidate_request(request.request_json);
  m.correctness.seeds_checked =
    request_body ? static_cast<std::uint32_t>(request_body->seeds.size()) : 0;
  const auto& s = r.stats;
  m.timing.median_s = s.median_s;
  m.timing.mean_s = s.mean_s;
  m.timing.stddev_s = s.stddev_s;
  m.timing.cv = s.cv;
  m.timing.ci95_low_s = s.median_ci.low;
  m.timing.ci95_high_s = s.median_ci.high;
  m.timing.min_s = s.min_s;
  m.timing.samples = static_cast<std::uint32_t>(s.count);
  const double clock_hz = r.sm_clock_hz_after > 0 ? r.sm_clock_hz_after : r.sm_clock_hz_before;
  m.timing.sm_clock_mhz = clock_hz / 1e6;
  m.timing.loop_wall_s = r.wall_s;
  return m;
}

messages::component_status gpu_worker_state::status() const {
  messages::component_status s;
  s.component = config ? gpu_worker_name(config->device.ordinal) : std::string{name};
  if (!failure.empty()) {
    s.state = messages::component_state::failed;
    s.detail = failure;
  } else {
    s.state = keeper && keeper->running() ? messages::component_state::running
                                          : messages::component_state::starting;
    s.detail = config ? config->device.name : "";
  }
  s.counters = {{"requests", requests}, {"timeouts", timeouts}};
  if (keeper) {
    s.counters.push_back({"runner_starts", keeper->starts()});
    s.counters.push_back({"runner_restarts", keeper->restarts()});
  }
  return s;
}

messages::gpu_worker_actor::behavior_type gpu_worker(worker_pointer self, gpu_worker_config config) {
  keep_exception_text(self);
  auto& st = self->state;
  config.keeper.runner.visible_devices = config.uuid;
  st.config = config;
  auto log = logging::get("gpu_worker");

  // The lock first: a runner must not touch a GPU another warpforge is timing on.
  auto lock = gpu::gpu_lock::acquire(config.uuid, config.lock_holder, config.lock,
                                     config.lock_timeout, config.lock_dir);
  if (lock) {
    st.lock.emplace(std::move(*lock));
    const auto device = config.device;
    auto* system = &self->system();
    st.keeper.emplace(config.keeper, [system, device](const runner_event& e) {
      emit(*system, runner_feed_event(e, device));
    });
    if (!st.keeper->ensure_running())
      st.failure = st.keeper->give_up_reason();
  } else {
    st.failure = lock.error().to_string();
    log->error("{}: {}", gpu_worker_name(config.device.ordinal), st.failure);
  }

  return {
    [self](messages::run_request& request) -> messages::measurement {
      auto& state = self->state;
      const auto& cfg = *state.config;
      ++state.requests;
      const auto started = std::chrono::steady_clock::now();
      auto body = gpu::decode_candidate_request(request.request_json);
      const auto mode = body ? body->mode : gpu::timing_mode::warm;
      if (!state.failure.empty() || !state.keeper || !body) {
        messages::measurement m;
        m.ref = request.ref;
        m.device = cfg.device;
        m.outcome = storage::branch_outcome::not_run;
        m.error_text = !body ? "run_request: the candidate body does not decode: " + body.error().detail
                             : gpu_worker_name(cfg.device.ordinal) + " is out of service: " + state.failure;
        return m;
      }
      const auto watchdog = request.watchdog_s > 0
        ? std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(request.watchdog_s))
        : cfg.default_watchdog;
      auto result = state.keeper->run(*body, watchdog);
      auto m = measurement_from(request, cfg.device, mode, result);
      if (m.outcome == storage::branch_outcome::timeout)
        ++state.timeouts;
      if (state.keeper->gave_up())
        state.failure = state.keeper->give_up_reason();
      else
        self->send(self, messages::restart_atom::value); // the next runner starts while we reply
      m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return m;
    },
    [self](messages::profile_request&) -> caf::result<messages::metric_set> {
      return caf::make_error(caf::sec::runtime_error,
                             "gpu_worker: profiling is not in this build yet");
    },
    [self](messages::query_atom) { return self->state.config->device; },
    [self](messages::restart_atom) {
      auto& state = self->state;
      if (state.failure.empty() && state.keeper && !state.keeper->ensure_running())
        state.failure = state.keeper->give_up_reason();
    },
    [self](messages::stop_atom) {
      if (self->state.keeper)
        self->state.keeper->stop();
      self->state.lock.reset();
      self->quit(caf::exit_reason::user_shutdown);
    },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
