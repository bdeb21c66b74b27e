#include "actors/calibrator.hpp"

#include "actors/exceptions.hpp"
#include "foundation/logging/logging.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <caf/actor_cast.hpp>
#include <caf/system_messages.hpp>
#include <caf/exit_reason.hpp>
#include <caf/spawn_options.hpp>

#include <algorithm>
#include <atomic>

namespace warpforge::actors {

namespace {

using self_pointer = messages::calibrator_actor::stateful_pointer<calibrator_state>;

template <class Handle>
caf::actor untyped(Handle h) {
  return caf::actor_cast<caf::actor>(std::move(h));
}

void end_run(self_pointer self) {
  auto& st = self->state;
  st.end = messages::calibration_end{st.run->finish(), ""};
  logging::get("calibrate")->info("calibration ended: {} of {} passed{}", st.end->summary.passing(),
                                  st.end->summary.results.size(), st.end->summary.interrupted ? " (interrupted)" : "");
  for (auto& [asker, promise] : st.waiting)
    promise.deliver(*st.end);
  st.waiting.clear();
}

// Each idle GPU gets the next ready parameter; once nothing is in flight or left, the end.
void hand_out(self_pointer self) {
  auto& st = self->state;
  if (!st.run || st.end)
    return;
  if (st.out_of_service.size() == st.slots.size() && !st.interrupt_asked) {
    logging::get("calibrate")->error("every GPU of this run is out of service: the rest is not measured");
    st.run->stop();
  }
  for (const auto& slot : st.slots) {
    if (st.busy(slot.ordinal) || st.out_of_service.count(slot.ordinal) > 0)
      continue;
    auto request = st.run->next(slot);
    if (!request)
      break; // nothing ready now: a result must come first
    const auto parameter = request->what->name;
    job_context context{st.config.catalog, st.config.host, st.config.gpu};
    auto job = self->system().spawn(calibration_job, caf::actor_cast<messages::calibrator_actor>(self),
                                    std::move(*request), std::move(context));
    self->monitor(job);
    st.jobs[job.address()] = calibrator_state::job{slot.ordinal, parameter};
    ++st.handed_out;
  }
  if (st.run->finished())
    end_run(self);
}

void take_result(self_pointer self, const caf::actor_addr& from, messages::measured_parameter& m) {
  auto& st = self->state;
  const auto* slot = st.slot(m.gpu);
  if (!st.run || st.end || slot == nullptr)
    return; // a job of an earlier order, or of no GPU of ours: nothing to record it against
  st.jobs.erase(from);
  ++st.recorded;
  if (m.service == messages::worker_service::out_of_service && st.out_of_service.insert(m.gpu).second)
    logging::get("calibrate")->warn("{} is out of service: it gets no more parameters", gpu_worker_name(m.gpu));
  st.run->record(std::move(m.result), *slot);
  hand_out(self);
}

caf::actor_addr sender_of(self_pointer self) {
  return self->current_sender() ? self->current_sender()->address() : caf::actor_addr{};
}

// The first order starts the engine; one asked again (the runtime's poll, or after a restart)
// waits for the same end.
caf::typed_response_promise<messages::calibration_end> take_order(self_pointer self,
                                                                  const messages::calibration_order& order) {
  auto& st = self->state;
  auto promise = self->make_response_promise<messages::calibration_end>();
  if (st.end) {
    promise.deliver(*st.end);
    return promise;
  }
  st.waiting[sender_of(self)] = promise;
  if (st.run)
    return promise;
  if (auto problem = st.start(order, self->system())) {
    st.end = messages::calibration_end{{}, *problem};
    for (auto& [asker, waiting] : st.waiting)
      waiting.deliver(*st.end);
    st.waiting.clear();
    return promise;
  }
  if (st.interrupt_asked)
    st.run->stop();
  hand_out(self);
  return promise;
}

// Ctrl-C: nothing more is handed out; the jobs in flight finish and are recorded.
void interrupt(self_pointer self) {
  auto& st = self->state;
  st.interrupt_asked = true;
  if (st.run && !st.end) {
    st.run->stop();
    hand_out(self); // with nothing in flight, it ends now
  }
}

// A job that ended without sending its result: its parameter is recorded NO_DATA with the reason.
void job_down(self_pointer self, const caf::down_msg& down) {
  auto& st = self->state;
  auto found = st.jobs.find(down.source);
  if (found == st.jobs.end())
    return; // it answered first
  const auto job = found->second;
  st.jobs.erase(found);
  const auto* what = st.config.catalog->find(job.parameter);
  const auto* slot = st.slot(job.gpu);
  if (!st.run || st.end || what == nullptr || slot == nullptr)
    return;
  calibrate::parameter_result result;
  result.name = what->name;
  result.unit = what->unit;
  result.result = calibrate::status::no_data;
  result.gpu_name = slot->name;
  result.notes.push_back("its job ended without a result: " + self->system().render(down.reason));
  ++st.recorded;
  st.run->record(std::move(result), *slot);
  hand_out(self);
}

} // namespace

calibrate::gpu_slot slot_of(const gpu::device_info& device) {
  return calibrate::gpu_slot{device.ordinal, device.uuid, device.name, device.arch()};
}

std::vector<child_spec> calibrate_children(const calibrator_config& config) {
  std::vector<child_spec> children;
  for (const auto& worker : config.workers)
    children.push_back({gpu_worker_name(worker.device.ordinal), [worker](caf::actor_system& sys) {
                          return untyped(sys.spawn<caf::detached>(gpu_worker, worker));
                        }});
  auto spawns = std::make_shared<std::atomic<int>>(0);
  children.push_back({std::string{calibrator_name}, [config, spawns](caf::actor_system& sys) {
                        const bool successor = spawns->fetch_add(1) > 0;
                        return untyped(sys.spawn<caf::detached>(calibrator, config, successor));
                      }});
  return children;
}

std::optional<std::string> calibrator_state::start(const messages::calibration_order& order,
                                                   caf::actor_system& system) {
  auto options = order.options;
  auto job_rows = order.jobs;
  if (successor) {
    options.resume = true; // what the crashed calibrator recorded is in results.json
    // ... and the job rows it made are in the store: updated, not made twice.
    if (auto db = storage::database::open_read_only(options.run_dir / storage::run_directory::database_file))
      if (auto stored = db->load_jobs(order.campaign_id))
        for (const auto& row : *stored)
          job_rows.emplace(row.name, row.id);
  }
  recorder = std::make_unique<calibration_recorder>(system, order.campaign_id, std::move(job_rows));
  auto started = calibrate::calibration_run::start(*config.catalog, options, *recorder, config.benchmarks);
  if (!started)
    return started.error();
  run = std::move(*started);
  return std::nullopt;
}

bool calibrator_state::busy(int ordinal) const {
  return std::any_of(jobs.begin(), jobs.end(), [ordinal](const auto& entry) { return entry.second.gpu == ordinal; });
}

const calibrate::gpu_slot* calibrator_state::slot(int ordinal) const {
  for (const auto& s : slots)
    if (s.ordinal == ordinal)
      return &s;
  return nullptr;
}

messages::component_status calibrator_state::status() const {
  messages::component_status s;
  s.component = std::string{calibrator_name};
  s.state = end || run ? messages::component_state::running : messages::component_state::starting;
  s.detail = end ? "ended" : run ? std::to_string(jobs.size()) + " job(s) in flight" : "waiting for an order";
  s.counters = {{"handed_out", handed_out}, {"recorded", recorded}, {"in_flight", static_cast<std::int64_t>(jobs.size())}};
  return s;
}

messages::calibrator_actor::behavior_type calibrator(self_pointer self, calibrator_config config, bool successor) {
  keep_exception_text(self);
  std::vector<calibrate::gpu_slot> gpus;
  for (const auto& worker : config.workers)
    gpus.push_back(slot_of(worker.device));
  self->state.slots = calibrate::worker_slots(gpus);
  self->state.config = std::move(config);
  self->state.successor = successor;
  self->set_down_handler([self](caf::down_msg& down) { job_down(self, down); });
  return {
    [self](const messages::calibration_order& order) { return take_order(self, order); },
    [self](messages::measured_parameter& m) { take_result(self, sender_of(self), m); },
    [self](messages::interrupt_atom) { interrupt(self); },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
