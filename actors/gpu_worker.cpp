#include "actors/gpu_worker.hpp"

#include "actors/emit.hpp"
#include "actors/exceptions.hpp"
#include "calibrate/engine/counter_check.hpp"
#include "diagnosis/metric_schema.hpp"
#include "gpu/profiling/metric_collection.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <unistd.h>

namespace warpforge::actors {

namespace {

using worker_pointer = messages::gpu_worker_actor::stateful_pointer<gpu_worker_state>;
using vocabulary::branch_outcome;

feed::event runner_feed_event(const runner_event& e, const gpu::device_info& device) {
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

// Where the ncu fallback of `config`'s worker writes its files.
std::filesystem::path ncu_work_dir(const gpu_worker_config& config) {
  if (!config.ncu_work_dir.empty())
    return config.ncu_work_dir;
  return std::filesystem::temp_directory_path() /
         ("warpforge-ncu-" + std::to_string(::getpid()) + "-gpu" + std::to_string(config.device.ordinal));
}

gpu::race_result not_run(const gpu::race_request& request, const std::string& why) {
  gpu::race_result r;
  for (std::size_t i = 0; i < request.kernels.size(); ++i) {
    gpu::kernel_result k;
    k.outcome = branch_outcome::not_run;
    k.detail = why;
    r.kernels.push_back(std::move(k));
  }
  return r;
}

} // namespace

std::string gpu_worker_name(int ordinal) {
  return "gpu." + std::to_string(ordinal);
}

gpu::race_result race_failed(const gpu::race_request& request, const gpu::runner_error& error) {
  auto r = not_run(request, error.to_string());
  for (auto& k : r.kernels)
    k.outcome = gpu::outcome_of(error.kind);
  return r;
}

messages::race_reply gpu_worker_state::race(const messages::race_order& order) {
  const auto& cfg = *config;
  const auto started = std::chrono::steady_clock::now();
  ++races;
  kernels += static_cast<std::int64_t>(order.request.kernels.size());
  messages::race_reply reply;
  reply.device = cfg.device;
  if (!failure.empty() || !keeper) {
    reply.service = messages::worker_service::out_of_service;
    reply.why_out_of_service = gpu_worker_name(cfg.device.ordinal) + " is out of service: " +
                               (failure.empty() ? std::string{"no runner"} : failure);
    reply.result = not_run(order.request, reply.why_out_of_service);
  } else {
    const auto per_kernel = order.deadline_s > 0
      ? std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(order.deadline_s))
      : cfg.default_watchdog;
    auto result = keeper->run(order.request, per_kernel);
    reply.result = result ? std::move(*result) : race_failed(order.request, result.error());
    for (const auto& k : reply.result.kernels)
      timeouts += k.outcome == branch_outcome::timeout;
    if (keeper->gave_up())
      failure = keeper->give_up_reason();
  }
  reply.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return reply;
}

gpu::metric_set gpu_worker_state::profile(const messages::metrics_order& order) {
  return std::move(profile(messages::metrics_batch_order{{order}}).sets.front());
}

messages::metrics_batch_reply gpu_worker_state::profile(const messages::metrics_batch_order& batch) {
  const auto& cfg = *config;
  messages::metrics_batch_reply reply;
  if (batch.orders.empty())
    return reply;
  if (!failure.empty() || !keeper) {
    profiles += static_cast<std::int64_t>(batch.orders.size());
    reply.sets.assign(batch.orders.size(),
                      gpu::out_of_service_metrics(gpu_worker_name(cfg.device.ordinal) + " is out of service: " +
                                                  (failure.empty() ? std::string{"no runner"} : failure)));
    return reply;
  }
  // One batch shares its metric keys and tool (messages/gpu_worker.hpp); orders that do not are
  // answered one batch each.
  const auto& first = batch.orders.front();
  if (std::any_of(batch.orders.begin(), batch.orders.end(), [&](const messages::metrics_order& o) {
        return o.metric_keys != first.metric_keys || o.tool != first.tool;
      })) {
    for (const auto& order : batch.orders)
      reply.sets.push_back(profile(order));
    return reply;
  }
  profiles += static_cast<std::int64_t>(batch.orders.size());
  std::vector<gpu::profile_request> launches;
  for (const auto& order : batch.orders) {
    gpu::profile_request launch;
    launch.run = order.launch;
    launch.replay = gpu::profile_replay::kernel; // ncu's, when it runs: one process, no re-runs
    launches.push_back(std::move(launch));
  }
  // The runner's own profiles replay the kernel themselves (user replay: inputs restored, outputs
  // poisoned, the L2 evicted by a read sweep before every launch). Against ncu's Speed-of-light
  // figures on 2x H100 it read within 1.8 points; CUPTI's kernel replay read the divergent
  // fixture's memory throughput at 11.4% against ncu's 6.0% (probably its restore's dirty lines
  // written back during the passes). docs/measurement.md, "Replay mode".
  // The reply deadline is one profile's per kernel: each has its own launches (and SASS-patched
  // launch) beside the shared passes.
  auto ask = [this, &cfg](const std::vector<gpu::profile_request>& requests) {
    auto user_replay = requests;
    for (auto& r : user_replay)
      r.replay = gpu::profile_replay::user;
    return keeper->profile(user_replay, cfg.profile_watchdog * static_cast<long>(requests.size()));
  };
  std::optional<gpu::ncu_source> ncu;
  if (auto tool = gpu::ncu_source::locate(cfg.ncu)) {
    gpu::ncu_options options;
    options.ncu = *tool;
    options.runner = keeper->options().runner.executable;
    options.work_dir = ncu_work_dir(cfg);
    options.visible_devices = cfg.device.uuid;
    options.timeout = cfg.profile_watchdog;
    ncu.emplace(std::move(options));
  }
  reply.sets = gpu::collect_metrics(std::move(launches), first.metric_keys, ask, ncu ? &*ncu : nullptr,
                                    diagnosis::builtin_metric_schema(),
                                    gpu::ncu_supplement::skip, first.tool); // no ncu start-up in the steady state
  // A runner that gave up during this profile (the kernel under it crashed it again and again)
  // answers "not diagnosed", not out of service: that kernel is not sent to another GPU to crash
  // it too. The next order this worker gets is out of service.
  if (keeper->gave_up())
    failure = keeper->give_up_reason();
  return reply;
}

messages::program_reply gpu_worker_state::program(const messages::program_order& order) {
  const auto& cfg = *config;
  const auto started = std::chrono::steady_clock::now();
  ++programs;
  messages::program_reply reply;
  reply.device = cfg.device;
  if (!failure.empty()) {
    reply.status = messages::program_run_status::out_of_service;
    reply.detail = gpu_worker_name(cfg.device.ordinal) + " is out of service: " + failure;
  } else {
    gpu::program_run_options run;
    run.executable = order.executable;
    run.arguments = order.arguments;
    run.visible_devices = cfg.device.uuid;
    run.watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(order.watchdog_s));
    run.trials = order.trials;
    run.output_dir = order.output_dir;
    logging::get("gpu_worker")->info("{}: {}: {} trial(s) of {}", gpu_worker_name(cfg.device.ordinal), order.label,
                                     order.trials, order.executable.string());
    auto report = gpu::run_program(run);
    if (report) {
      reply.trials = std::move(report->trials);
      for (const auto& trial : reply.trials)
        timeouts += trial.outcome == gpu::program_outcome::timeout;
    } else {
      reply.status = messages::program_run_status::cannot_start;
      reply.detail = "cannot start " + order.executable.string() + ": " + report.error().detail;
    }
  }
  reply.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return reply;
}

messages::counter_reply gpu_worker_state::counters(const messages::counter_order& order) {
  const auto& cfg = *config;
  ++profiles;
  messages::counter_reply reply;
  reply.device = cfg.device;
  if (!failure.empty()) {
    reply.verdict = "not validated: " + gpu_worker_name(cfg.device.ordinal) + " is out of service: " + failure;
    return reply;
  }
  // The worker's ncu setting: nullopt looks on PATH and in $CUDA_HOME/bin, an empty path means none.
  const auto ncu = cfg.ncu ? (cfg.ncu->empty() ? std::nullopt : cfg.ncu) : calibrate::locate_ncu();
  if (!ncu) {
    reply.verdict = "not validated: no ncu on $PATH or in $CUDA_HOME/bin";
    return reply;
  }
  calibrate::counter_check_request request;
  request.ncu = *ncu;
  request.executable = order.executable;
  request.visible_devices = cfg.device.uuid;
  request.dir = order.dir;
  request.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(order.pass_timeout_s));
  // The check reads only the parameter's name, unit, validation metrics and rederive formula.
  calibrate::parameter what;
  what.name = order.parameter;
  what.unit = order.unit;
  what.validation_metrics = order.metrics;
  if (!order.rederive_count.empty())
    what.rederive = calibrate::counter_formula{order.rederive_count, order.rederive_over, order.rederive_scale};
  reply.verdict = calibrate::validate_with_ncu(request, what, order.measured);
  return reply;
}

messages::component_status gpu_worker_state::status() const {
  messages::component_status s;
  s.component = config ? gpu_worker_name(config->device.ordinal) : std::string{name};
  if (!failure.empty()) {
    s.state = messages::component_state::failed;
    s.detail = failure;
  } else {
    const bool ready = config && !config->keep_runner ? lock.has_value() : keeper && keeper->running();
    s.state = ready ? messages::component_state::running : messages::component_state::starting;
    s.detail = config ? config->device.name : "";
  }
  s.counters = {{"races", races},       {"kernels", kernels},   {"timeouts", timeouts},
                {"profiles", profiles}, {"programs", programs}};
  if (keeper) {
    s.counters.push_back({"runner_starts", keeper->starts()});
    s.counters.push_back({"runner_restarts", keeper->restarts()});
  }
  return s;
}

messages::gpu_worker_actor::behavior_type gpu_worker(worker_pointer self, gpu_worker_config config) {
  keep_exception_text(self);
  auto& st = self->state;
  config.keeper.runner.visible_devices = config.device.uuid;
  st.config = config;
  // The lock first: a runner must not touch a GPU another warpforge is timing on.
  auto lock = gpu::gpu_lock::acquire(config.device.uuid, config.lock_holder, config.lock, config.lock_timeout,
                                     config.lock_dir);
  if (lock && !config.keep_runner) {
    st.lock.emplace(std::move(*lock));
  } else if (lock) {
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
    logging::get("gpu_worker")->error("{}: {}", gpu_worker_name(config.device.ordinal), st.failure);
  }
  // The next runner starts while the reply travels, not when the next request arrives.
  auto restart_soon = [self] {
    if (self->state.failure.empty() && self->state.keeper)
      self->send(self, messages::restart_atom::value);
  };
  return {
    [self, restart_soon](const messages::race_order& order) {
      auto reply = self->state.race(order);
      restart_soon();
      return reply;
    },
    [self, restart_soon](const messages::metrics_order& order) {
      auto set = self->state.profile(order);
      restart_soon();
      return set;
    },
    [self, restart_soon](const messages::metrics_batch_order& batch) {
      auto reply = self->state.profile(batch);
      restart_soon();
      return reply;
    },
    [self](const messages::program_order& order) { return self->state.program(order); },
    [self](const messages::counter_order& order) { return self->state.counters(order); },
    [self](messages::query_atom) { return self->state.config->device; },
    [self](messages::restart_atom) {
      auto& state = self->state;
      if (state.failure.empty() && state.keeper && !state.keeper->ensure_running())
        state.failure = state.keeper->give_up_reason();
    },
    [self](messages::stop_atom) {
      if (self->state.keeper)
        self->state.keeper->stop();
      if (self->state.config->ncu_work_dir.empty()) { // ours, in the temp folder: nobody reads it later
        std::error_code ignored;
        std::filesystem::remove_all(ncu_work_dir(*self->state.config), ignored);
      }
      self->state.lock.reset();
      self->quit(caf::exit_reason::user_shutdown);
    },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
