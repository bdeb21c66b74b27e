#include "actors/calibration_recorder.hpp"

#include "actors/emit.hpp"
#include "actors/registry.hpp"
#include "feed/event.hpp"
#include "foundation/logging/logging.hpp"
#include "messages/store.hpp"

namespace warpforge::actors {

calibration_recorder::calibration_recorder(caf::actor_system& system, std::int64_t campaign_id,
                                           std::map<std::string, std::int64_t> jobs)
    : system_(system), self_(system), campaign_(campaign_id), jobs_(std::move(jobs)) {}

template <class Record>
std::optional<std::int64_t> calibration_recorder::write(const Record& record) {
  auto store = lookup<messages::store_actor>(system_, store_name);
  if (!store) {
    logging::get("calibrate")->warn("store write failed: the store is not running");
    return std::nullopt;
  }
  std::optional<std::int64_t> id;
  self_->request(store, store_write_timeout, record)
    .receive([&](std::int64_t row) { id = row; },
             [&](caf::error& err) { logging::get("calibrate")->warn("store write failed: {}", system_.render(err)); });
  return id;
}

std::optional<std::int64_t> calibration_recorder::job_id(const std::string& name) {
  if (auto found = jobs_.find(name); found != jobs_.end())
    return found->second;
  auto id = write(storage::job_record{campaign_, name, "calibrate:" + name});
  if (id)
    jobs_[name] = *id;
  return id;
}

void calibration_recorder::set_state(const std::string& name, vocabulary::job_state state, const std::string& reason) {
  if (auto id = job_id(name))
    write(storage::job_state_change{*id, state, reason});
}

void calibration_recorder::emit(feed::event_type type, const std::string& job, int gpu, std::string detail) {
  feed::event e;
  e.type = type;
  e.job = job;
  e.gpu = gpu;
  e.detail_json = std::move(detail);
  actors::emit(system_, std::move(e));
}

void calibration_recorder::parameter_started(const calibrate::parameter& what, const calibrate::gpu_slot& gpu) {
  set_state(what.name, vocabulary::job_state::running, "");
  emit(feed::event_type::job_started, what.name, gpu.ordinal,
       feed::detail{}.add("priority", what.priority).add("gpu_name", gpu.name).json());
}

void calibration_recorder::parameter_finished(const calibrate::parameter_result& r, const calibrate::gpu_slot& gpu) {
  const bool passed = calibrate::is_passing(r.result);
  const std::string status{calibrate::to_string(r.result)};
  // Not measured: why (the engine's reason), else the first note of what was measured.
  const std::string why = !r.value ? calibrate::not_measured_reason(r) : r.notes.empty() ? "" : r.notes.front();
  const std::string reason = passed ? "" : status + (why.empty() ? "" : ": " + why);
  set_state(r.name, passed ? vocabulary::job_state::finished : vocabulary::job_state::failed, reason);
  // What was not measured is null with the reason beside it, never 0 (docs/events.md).
  feed::detail detail;
  detail.add("status", status);
  r.value ? detail.add("value", *r.value) : detail.add_null("value");
  detail.add("unit", r.unit);
  calibrate::has_spread(r.stats) && r.value ? detail.add("cv", r.stats.cv) : detail.add_null("cv");
  detail.add("trials", static_cast<std::uint64_t>(r.stats.n)).add("sass", r.sass_verdict);
  if (!passed)
    detail.add("reason", reason); // job_failed's reason (docs/events.md), as the job row has it
  if (!r.value)
    detail.add("not_measured_reason", calibrate::not_measured_reason(r));
  else if (!calibrate::has_spread(r.stats))
    detail.add("not_measured_reason", "cv: " + calibrate::missing_spread_reason(r.stats));
  emit(passed ? feed::event_type::job_finished : feed::event_type::job_failed, r.name, gpu.ordinal, detail.json());
}

void calibration_recorder::parameter_deferred(const calibrate::parameter& what, const std::string& reason) {
  set_state(what.name, vocabulary::job_state::pending, "deferred: " + reason);
  emit(feed::event_type::job_failed, what.name, feed::no_gpu,
       feed::detail{}.add("status", "DEFERRED").add("reason", reason).json());
}

} // namespace warpforge::actors
