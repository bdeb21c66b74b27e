#include "actors/gpu_worker.hpp"

#include "actors/emit.hpp"
#include "actors/exceptions.hpp"
#include "diagnosis/ncu_csv.hpp"
#include "gpu/runner/ncu_profile.hpp"
#include "gpu/toolchain.hpp"
#include "logging/logging.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include <set>
#include <unistd.h>

namespace warpforge::actors {

namespace {

using worker_pointer = messages::gpu_worker_actor::stateful_pointer<gpu_worker_state>;

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

std::string describe_failure(const gpu::kernel_result& r) {
  std::string text = r.detail;
  if (r.seed)
    text += " (seed " + std::to_string(*r.seed) + ")";
  return text;
}

// How the runner's CUPTI attempt ended, for the note: its status and note, or the error.
std::string describe_attempt(const expected<gpu::profile_result, gpu::runner_error>& attempt) {
  if (!attempt)
    return "the runner could not answer: " + attempt.error().to_string();
  return std::string{gpu::to_string(attempt->status)} +
         (attempt->note.empty() ? std::string{} : ": " + attempt->note);
}

// Whether ncu may be asked after the runner's attempt: not when the candidate itself faulted or
// hung under the profiler (ncu would launch the same kernel), nor when CUPTI answered.
bool worth_a_second_opinion(const expected<gpu::profile_result, gpu::runner_error>& attempt) {
  if (!attempt)
    return attempt.error().kind != gpu::runner_error_kind::reply_timeout;
  return attempt->status != gpu::profile_status::ok && !attempt->runner_exits;
}

// A metric_set with no values, and why.
messages::metric_set no_metrics(const messages::profile_request& request,
                                const messages::device_summary& device, std::string note) {
  messages::metric_set set;
  set.ref = request.ref;
  set.device = device;
  set.source = messages::metric_source::none;
  set.note = std::move(note);
  return set;
}

void add_measured_inputs(const diagnosis::metric_schema& schema, const diagnosis::metric_definition& m,
                         std::set<std::string>& names, std::set<std::string>& visited) {
  if (!visited.insert(m.key).second)
    return;
  if (!m.derived()) {
    names.insert(m.nsight);
    return;
  }
  for (const auto& key : m.formula.keys())
    if (const auto* input = schema.find(key))
      add_measured_inputs(schema, *input, names, visited);
}

// Where the ncu fallback of `config`'s worker writes its files.
std::filesystem::path ncu_work_dir(const gpu_worker_config& config) {
  if (!config.ncu_work_dir.empty())
    return config.ncu_work_dir;
  return std::filesystem::temp_directory_path() /
         ("warpforge-ncu-" + std::to_string(::getpid()) + "-gpu" +
          std::to_string(config.device.ordinal));
}

} // namespace

nsight_selection nsight_names_for(const std::vector<std::string>& keys,
                                  const diagnosis::metric_schema& schema) {
  nsight_selection out;
  std::set<std::string> wanted;
  std::set<std::string> visited;
  for (const auto& key : keys) {
    if (const auto* m = schema.find(key))
      add_measured_inputs(schema, *m, wanted, visited);
    else
      out.unknown_keys.push_back(key);
  }
  for (const auto& m : schema.metrics())
    if (!m.derived() && (keys.empty() || wanted.count(m.nsight) > 0))
      out.names.push_back(m.nsight);
  return out;
}

messages::metric_set metric_set_from(const messages::profile_request& request,
                                     const messages::device_summary& device,
                                     messages::metric_source source,
                                     const gpu::profile_result& result,
                                     const nsight_selection& selection,
                                     const diagnosis::metric_schema& schema, std::string note) {
  messages::metric_set set;
  set.ref = request.ref;
  set.device = device;
  set.source = source;
  const diagnosis::nsight_values values(result.values.begin(), result.values.end());
  const auto mapped = diagnosis::map_base_units(values, schema);
  std::vector<std::string> gaps;
  for (const auto& name : selection.names) {
    const auto* m = schema.find_nsight(name);
    if (m == nullptr)
      continue;
    if (auto v = mapped.values.find(m->key); v != mapped.values.end()) {
      set.values.push_back({m->key, v->second});
      continue;
    }
    std::string why = "not returned";
    if (auto r = result.missing.find(name); r != result.missing.end())
      why = r->second;
    for (const auto& skipped : mapped.skipped)
      if (skipped.nsight == name)
        why = skipped.reason;
    gaps.push_back(m->key + " (" + name + "): " + why);
  }
  for (const auto& key : selection.unknown_keys)
    gaps.push_back(key + ": not a key of the metric schema");
  if (!gaps.empty()) {
    if (!note.empty())
      note += "; ";
    note += std::to_string(gaps.size()) + " of " +
            std::to_string(selection.names.size() + selection.unknown_keys.size()) +
            " requested metrics have no value: ";
    for (std::size_t i = 0; i < gaps.size(); ++i)
      note += (i == 0 ? "" : "; ") + gaps[i];
  }
  set.note = std::move(note);
  return set;
}

std::optional<std::filesystem::path> locate_ncu(const std::optional<std::filesystem::path>& configured) {
  if (configured)
    return configured->empty() ? std::nullopt : configured;
  const auto env = gpu::toolchain_environment::from_process();
  const std::filesystem::path home = env.cuda_home ? std::filesystem::path{*env.cuda_home}
                                                   : gpu::default_cuda_home;
  return gpu::find_tool(gpu::to_string(gpu::cuda_tool::ncu), env.path, home);
}

std::string gpu_worker_name(int ordinal) {
  return "gpu." + std::to_string(ordinal);
}

messages::measurement
measurement_from(const messages::run_request& request, const messages::device_summary& device,
                 vocabulary::timing_mode mode,
                 const expected<gpu::race_result, gpu::runner_error>& result) {
  messages::measurement m;
  m.ref = request.ref;
  m.device = device;
  m.mode = mode == vocabulary::timing_mode::cold ? messages::timing_mode::cold : messages::timing_mode::warm;
  if (!result) {
    m.outcome = gpu::outcome_of(result.error().kind);
    m.error_text = result.error().to_string();
    return m;
  }
  if (result->kernels.empty()) {
    m.outcome = vocabulary::branch_outcome::runtime_error;
    m.error_text = "the runner answered a race without kernel results";
    return m;
  }
  const auto& race = *result;
  const auto& r = race.kernels.front();
  m.outcome = r.outcome;
  if (r.compare) {
    m.correctness.max_abs_error = r.compare->max_abs_error;
    m.correctness.max_rel_error = r.compare->max_rel_error;
    if (r.compare->first_bad_index)
      m.correctness.first_bad_index = static_cast<std::int64_t>(*r.compare->first_bad_index);
  }
  m.correctness.inputs_unchanged = !r.input || r.input->unchanged;
  if (r.outcome != vocabulary::branch_outcome::passed) {
    m.error_text = describe_failure(r);
    return m;
  }
  auto request_body = gpu::decode_race_request(request.request_json);
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
  const double clock_hz = race.sm_clock_hz_after > 0 ? race.sm_clock_hz_after : race.sm_clock_hz_before;
  m.timing.sm_clock_mhz = clock_hz / 1e6;
  m.timing.loop_wall_s = r.timing_s;
  return m;
}

messages::metric_set gpu_worker_state::profile(const messages::profile_request& request) {
  const auto& cfg = *config;
  ++profiles;
  auto body = gpu::decode_race_request(request.request_json);
  if (!body)
    return no_metrics(request, cfg.device,
                      "profile_request: the candidate body does not decode: " + body.error().detail);
  if (!failure.empty() || !keeper)
    return no_metrics(request, cfg.device,
                      gpu_worker_name(cfg.device.ordinal) + " is out of service: " + failure);
  const auto& schema = diagnosis::builtin_metric_schema();
  const auto selection = nsight_names_for(request.metric_keys, schema);
  if (selection.names.empty()) {
    std::string unknown;
    for (const auto& key : selection.unknown_keys)
      unknown += (unknown.empty() ? "" : ", ") + key;
    return no_metrics(request, cfg.device,
                      "no metric to collect: not keys of the metric schema: " + unknown);
  }

  gpu::profile_request asked;
  asked.run = std::move(*body);
  asked.metrics = selection.names;
  asked.replay = gpu::profile_replay::kernel;
  auto attempt = keeper->profile(asked, cfg.profile_watchdog);
  if (keeper->gave_up())
    failure = keeper->give_up_reason();
  if (attempt && attempt->status == gpu::profile_status::ok) {
    // CUPTI's range profiler has no SASS-patching metrics (smsp__sass_*) and no launch__*
    // attributes: ncu supplies what it left out, when it is here.
    auto result = std::move(*attempt);
    std::string note = result.note;
    gpu::profile_request rest = asked;
    rest.metrics.clear();
    for (const auto& metric : asked.metrics)
      if (result.values.count(metric) == 0)
        rest.metrics.push_back(metric);
    if (!rest.metrics.empty())
      if (auto extra = ask_ncu(rest)) {
        std::vector<std::string> supplied;
        for (const auto& [metric, value] : extra->values)
          if (result.values.emplace(metric, value).second) {
            result.missing.erase(metric);
            supplied.push_back(metric);
          }
        note += "; ncu for the " + std::to_string(rest.metrics.size()) + " metrics CUPTI did not give: " +
                std::string{gpu::to_string(extra->status)} + ", " + std::to_string(supplied.size()) +
                " supplied" + (extra->status == gpu::profile_status::ok ? "" : " (" + extra->note + ")");
      }
    return metric_set_from(request, cfg.device, messages::metric_source::cupti, result, selection,
                           schema, note);
  }

  const std::string cupti_note = "CUPTI: " + describe_attempt(attempt);
  if (!worth_a_second_opinion(attempt))
    return no_metrics(request, cfg.device,
                      cupti_note + "; no ncu fallback: the candidate itself failed under the profiler");
  const auto fallback = ask_ncu(asked);
  if (!fallback)
    return no_metrics(request, cfg.device,
                      cupti_note + "; no ncu fallback: ncu not found on PATH or in the CUDA home's bin/");
  if (fallback->status == gpu::profile_status::ok)
    return metric_set_from(request, cfg.device, messages::metric_source::ncu, *fallback, selection,
                           schema, cupti_note + "; values from the ncu fallback");
  return no_metrics(request, cfg.device,
                    cupti_note + "; ncu: " + std::string{gpu::to_string(fallback->status)} +
                      (fallback->note.empty() ? std::string{} : ": " + fallback->note));
}

std::optional<gpu::profile_result> gpu_worker_state::ask_ncu(const gpu::profile_request& asked) {
  const auto& cfg = *config;
  const auto ncu = locate_ncu(cfg.ncu);
  if (!ncu)
    return std::nullopt;
  ++ncu_fallbacks;
  logging::get("gpu_worker")->info("{}: asking ncu for {} metrics", gpu_worker_name(cfg.device.ordinal),
                                   asked.metrics.size());
  gpu::ncu_options options;
  options.ncu = *ncu;
  options.runner = keeper->options().runner.executable;
  options.work_dir = ncu_work_dir(cfg);
  options.visible_devices = cfg.uuid;
  options.timeout = cfg.profile_watchdog;
  return gpu::profile_with_ncu(asked, options);
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
  s.counters = {{"requests", requests},
                {"timeouts", timeouts},
                {"profiles", profiles},
                {"ncu_fallbacks", ncu_fallbacks}};
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
      auto body = gpu::decode_race_request(request.request_json);
      const auto mode = body ? body->mode : vocabulary::timing_mode::warm;
      if (!state.failure.empty() || !state.keeper || !body) {
        messages::measurement m;
        m.ref = request.ref;
        m.device = cfg.device;
        m.outcome = vocabulary::branch_outcome::not_run;
        m.error_text = !body ? "run_request: the candidate body does not decode: " + body.error().detail
                             : gpu_worker_name(cfg.device.ordinal) + " is out of service: " + state.failure;
        return m;
      }
      const auto watchdog = request.watchdog_s > 0
        ? std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(request.watchdog_s))
        : cfg.default_watchdog;
      auto result = state.keeper->run(*body, watchdog);
      auto m = measurement_from(request, cfg.device, mode, result);
      if (m.outcome == vocabulary::branch_outcome::timeout)
        ++state.timeouts;
      if (state.keeper->gave_up())
        state.failure = state.keeper->give_up_reason();
      else
        self->send(self, messages::restart_atom::value); // the next runner starts while we reply
      m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return m;
    },
    [self](messages::profile_request& request) -> messages::metric_set {
      auto set = self->state.profile(request);
      if (self->state.failure.empty())
        self->send(self, messages::restart_atom::value); // the next runner starts while we reply
      return set;
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
