#include "actors/campaign.hpp"

#include "actors/ask.hpp"
#include "actors/emit.hpp"
#include "actors/exceptions.hpp"
#include "actors/registry.hpp"
#include "actors/scheduler.hpp"
#include "config/campaign_spec.hpp"
#include "messages/scheduler.hpp"
#include "messages/store.hpp"
#include "messages/supervisor.hpp"

#include <caf/exit_reason.hpp>

#include <stdexcept>

namespace warpforge::actors {

namespace {

using self_pointer = messages::campaign_actor::stateful_pointer<campaign_state>;

/// How long a stopping campaign waits for its last row to be written.
constexpr std::chrono::seconds stop_write_timeout{5};

// Every request through actors/ask.hpp; a tick soon sends again what its receiver's death left.
template <class Handle, class Reply, class Request, class Then>
void send(self_pointer self, std::string name, Request request, Then then) {
  ask<Handle, Reply>(self, self->state.asks, std::move(name), std::move(request), then);
  if (self->state.asks.any_due())
    self->delayed_send(self, self->state.retry_delay, messages::tick_atom::value);
}

feed::event campaign_event(feed::event_type type, std::string detail_json) {
  feed::event e;
  e.type = type;
  e.detail_json = std::move(detail_json);
  return e;
}

// campaign_started as docs/events.md lists it; the wall-time budget lets monitors show what is left.
feed::event started_event(const messages::campaign_plan& plan, const config::campaign_spec& spec) {
  feed::detail detail;
  detail.add("kind", pipeline::to_string(plan.mode))
    .add("jobs", static_cast<std::uint64_t>(plan.job_ids.size()))
    .add("gpus", static_cast<std::uint64_t>(plan.gpus.size()))
    .add("resumed", plan.resume)
    .add("run_dir", plan.run_dir)
    .add("proposer", config::to_string(spec.proposer.kind))
    .add("wall_time_s", spec.budget.wall_time_s);
  return campaign_event(feed::event_type::campaign_started, detail.json());
}

void record_end(self_pointer self, const pipeline::campaign_result& r) {
  const auto& plan = *self->state.plan;
  using kind = pipeline::campaign_result_kind;
  const auto state = r.kind == kind::finished      ? vocabulary::campaign_state::finished
                     : r.kind == kind::interrupted ? vocabulary::campaign_state::interrupted
                                                   : vocabulary::campaign_state::failed;
  const auto type = r.kind == kind::finished      ? feed::event_type::campaign_finished
                    : r.kind == kind::interrupted ? feed::event_type::campaign_interrupted
                                                  : feed::event_type::campaign_failed;
  feed::detail detail;
  detail.add("reason", r.reason).add("duration_s", r.wall_s);
  if (r.gpus.empty()) // no GPU: its shares of time were not measured (null, never 0; docs/events.md)
    detail.add_null("gpu_busy_fraction").add_null("worker_occupancy").add_null("gpu_wait_for_compile_s")
      .add("not_measured_reason", "no GPU in this campaign");
  else
    detail.add("gpu_busy_fraction", r.gpu_busy_fraction).add("worker_occupancy", r.worker_occupancy)
      .add("gpu_wait_for_compile_s", r.gpu_wait_for_compile_s);
  detail.add("measured", r.measured).add("compiled", r.compiled);
  emit(self->system(), campaign_event(type, detail.json()));
  send<messages::store_actor, std::int64_t>(self, std::string{store_name},
                             storage::campaign_state_change{plan.campaign_id, state, r.reason},
                             [self, r](std::int64_t) {
                               self->state.result = r;
                               for (auto& [asker, promise] : self->state.waiting)
                                 promise.deliver(r);
                               self->state.waiting.clear();
                             });
}

void run(self_pointer self) {
  auto& st = self->state;
  send<messages::store_actor, std::int64_t>(self, std::string{store_name},
                             storage::campaign_state_change{st.plan->campaign_id, vocabulary::campaign_state::running, {}},
                             [self](std::int64_t) {
                               emit(self->system(), started_event(*self->state.plan, *self->state.spec));
                               send<messages::scheduler_actor, pipeline::campaign_result>(self, std::string{scheduler_name}, *self->state.plan,
                                                              [self](pipeline::campaign_result& r) { record_end(self, r); });
                               if (self->state.interrupt_asked)
                                 self->send(self, messages::interrupt_atom::value);
                             });
}

// The job rows, one at a time in spec order (each answer carries its id).
void record_jobs(self_pointer self, std::size_t next) {
  const auto& jobs = self->state.spec->jobs;
  if (next == jobs.size())
    return run(self);
  const auto& job = jobs[next];
  send<messages::store_actor, std::int64_t>(self, std::string{store_name},
                             storage::job_record{self->state.plan->campaign_id, job.name, job.problem_path.string()},
                             [self, next](std::int64_t id) {
                               self->state.plan->job_ids.push_back(id);
                               record_jobs(self, next + 1);
                             });
}

void record(self_pointer self) {
  const auto& plan = *self->state.plan;
  send<messages::store_actor, std::int64_t>(self, std::string{store_name},
                             storage::campaign_record{plan.name, plan.spec_path, plan.spec_toml, plan.run_dir},
                             [self](std::int64_t id) {
                               self->state.plan->campaign_id = id;
                               record_jobs(self, 0);
                             });
}

// What the store holds decides: a campaign recorded earlier (a resume, or this actor restarted)
// keeps its rows; otherwise they are recorded now. Read once every queued write is durable.
void begin(self_pointer self) {
  send<messages::store_actor, std::int64_t>(self, std::string{store_name}, messages::flush_atom::value, [self](std::int64_t) {
    auto stored = report::load_report(self->state.plan->run_dir);
    if (stored)
      if (auto known = campaign_state::with_stored_ids(*self->state.plan, *self->state.spec, *stored)) {
        self->state.plan = std::move(*known);
        return run(self);
      }
    record(self);
  });
}

// Stopped before the scheduler's answer: the supervisor gave up on an actor (its reason is the
// campaign's, and the campaign failed), or the process is shutting down (interrupted). Either way
// it is resumable. The actor quits once the row is written (the store stops after it).
void record_stop(self_pointer self) {
  auto write = [self](vocabulary::campaign_state state, std::string reason) {
    auto store = lookup<messages::store_actor>(self->system(), store_name);
    if (!store)
      return self->quit(caf::exit_reason::user_shutdown);
    emit(self->system(), campaign_event(state == vocabulary::campaign_state::failed ? feed::event_type::campaign_failed
                                                                                   : feed::event_type::campaign_interrupted,
                                        feed::detail{}.add("reason", reason).json()));
    self->request(store, stop_write_timeout, storage::campaign_state_change{self->state.plan->campaign_id, state, reason})
      .then([self](std::int64_t) { self->quit(caf::exit_reason::user_shutdown); },
            [self](caf::error&) { self->quit(caf::exit_reason::user_shutdown); });
  };
  auto supervisor = lookup<messages::supervisor_actor>(self->system(), supervisor_name);
  if (!supervisor)
    return write(vocabulary::campaign_state::interrupted, "stopped before the campaign ended; resume with `warpforge resume`");
  self->request(supervisor, stop_write_timeout, messages::status_atom::value)
    .then([write](messages::supervision_report& report) {
            if (report.gave_up)
              write(vocabulary::campaign_state::failed,
                    "the supervisor gave up: " + report.reason + "; resume with `warpforge resume`");
            else
              write(vocabulary::campaign_state::interrupted, "stopped before the campaign ended; resume with `warpforge resume`");
          },
          [write](caf::error&) {
            write(vocabulary::campaign_state::interrupted, "stopped before the campaign ended; resume with `warpforge resume`");
          });
}

} // namespace

void campaign_state::take(messages::campaign_plan given) {
  if (!spec)
    throw std::logic_error("campaign: started without the campaign spec");
  if (given.spec_toml != spec->raw_text)
    throw std::logic_error("campaign: the plan's spec text is not the spec this campaign actor was started with");
  plan = std::move(given);
}

std::optional<messages::campaign_plan> campaign_state::with_stored_ids(messages::campaign_plan plan,
                                                                       const config::campaign_spec& spec,
                                                                       const report::campaign_report& stored) {
  if (stored.campaign.name != plan.name)
    return std::nullopt;
  plan.campaign_id = stored.campaign.id;
  plan.job_ids.clear();
  for (const auto& job : spec.jobs) {
    std::int64_t id = 0;
    for (const auto& j : stored.jobs)
      if (j.row.name == job.name)
        id = j.row.id;
    if (id == 0)
      return std::nullopt; // a job the earlier recording does not have: not the same campaign
    plan.job_ids.push_back(id);
  }
  plan.resume = true;
  return plan;
}

messages::component_status campaign_state::status() const {
  messages::component_status s;
  s.component = std::string{campaign_name};
  s.state = result ? messages::component_state::stopped : plan ? messages::component_state::running
                                                                : messages::component_state::starting;
  s.detail = plan ? plan->name : "";
  return s;
}

messages::campaign_actor::behavior_type campaign(messages::campaign_actor::stateful_pointer<campaign_state> self,
                                                std::shared_ptr<const config::campaign_spec> spec) {
  keep_exception_text(self);
  self->state.spec = std::move(spec);
  self->set_down_handler([self](caf::down_msg& m) {
    self->state.asks.receiver_down(m.source);
    if (self->state.asks.any_due())
      self->delayed_send(self, self->state.retry_delay, messages::tick_atom::value);
  });
  return {
    [self](messages::campaign_plan& plan) -> caf::typed_response_promise<pipeline::campaign_result> {
      auto& st = self->state;
      auto promise = self->make_response_promise<pipeline::campaign_result>();
      if (st.result) {
        promise.deliver(*st.result);
        return promise;
      }
      st.waiting[self->current_sender() ? self->current_sender()->address() : caf::actor_addr{}] = promise;
      if (!st.plan) {
        st.take(std::move(plan));
        begin(self);
      }
      return promise;
    },
    [self](messages::interrupt_atom) {
      self->state.interrupt_asked = true;
      if (auto scheduler = lookup<messages::scheduler_actor>(self->system(), scheduler_name))
        self->send(scheduler, messages::interrupt_atom::value);
    },
    [self](messages::tick_atom) {
      self->state.asks.send_due();
      if (self->state.asks.any_due())
        self->delayed_send(self, self->state.retry_delay, messages::tick_atom::value);
    },
    [self](messages::stop_atom) {
      if (self->state.result || !self->state.plan || self->state.plan->campaign_id == 0)
        return self->quit(caf::exit_reason::user_shutdown);
      record_stop(self);
    },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
