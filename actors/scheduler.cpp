#include "actors/scheduler.hpp"

#include "actors/ask.hpp"
#include "actors/compiler.hpp"
#include "actors/emit.hpp"
#include "actors/exceptions.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/profiler.hpp"
#include "actors/proposer.hpp"
#include "actors/registry.hpp"
#include "actors/sass_checker.hpp"
#include "config/campaign_spec.hpp"
#include "foundation/logging/logging.hpp"
#include "messages/compiler.hpp"
#include "messages/profiler.hpp"
#include "messages/proposer.hpp"
#include "messages/sass.hpp"
#include "messages/store.hpp"
#include "pipeline/records.hpp"

#include <caf/exit_reason.hpp>

#include <stdexcept>

namespace warpforge::actors {

namespace {

using self_pointer = messages::scheduler_actor::stateful_pointer<scheduler_state>;

void flush(self_pointer self);

// Every order goes through actors/ask.hpp; each answer is handed to the engine, then whatever the
// engine wants next is sent.
template <class Handle, class Reply, class Request, class Then>
void send(self_pointer self, std::string name, Request request, Then then) {
  ask<Handle, Reply>(self, self->state.asks, std::move(name), std::move(request), [self, then](Reply& answer) {
    then(answer);
    flush(self);
  });
}

void write(self_pointer self, const pipeline::store_write& w) {
  ++self->state.writes_in_flight;
  std::visit([self](const auto& record) {
               send<messages::store_actor, std::int64_t>(self, std::string{store_name}, record,
                                          [self](std::int64_t) { --self->state.writes_in_flight; });
             },
             w);
}

// `[log] level = "debug"` shows each order as it leaves (trace: each event as it is published).
void log_orders(const pipeline::outbox& out) {
  auto log = logging::get("scheduler");
  for (const auto& [id, order] : out.compiles)
    log->debug("order {}: compile {} iteration {} branch {}{}", id, order.ref.job, order.ref.iteration,
               order.ref.branch, order.keep_files ? "" : " (ahead, into the cache)");
  for (const auto& [id, order] : out.sass_checks)
    log->debug("order {}: SASS check {} iteration {} branch {}", id, order.ref.job, order.ref.iteration,
               order.ref.branch);
  for (const auto& p : out.proposals)
    log->debug("order {}: proposal for {} iteration {}", p.id, p.request.job, p.request.iteration);
  for (const auto& r : out.races)
    log->debug("order {}: race of {} kernel(s) of {} iteration {} on GPU {}", r.id, r.request.kernels.size(),
               r.ref.job, r.ref.iteration, r.gpu);
  for (const auto& p : out.profiles)
    log->debug("order {}: profile {} iteration {} branch {} on GPU {}", p.id, p.ref.job, p.ref.iteration,
               p.ref.branch, p.device.ordinal);
}

void send_orders(self_pointer self, pipeline::outbox& out) {
  auto& st = self->state;
  log_orders(out);
  for (auto& [id, order] : out.compiles) {
    const auto name = compiler_name(st.next_compiler++ % std::max<std::size_t>(1, st.options.compilers));
    send<messages::compiler_actor, pipeline::built_kernel>(self, name, order,
                                  [self, id = id](pipeline::built_kernel& k) { self->state.engine->built(id, k); });
  }
  for (auto& [id, order] : out.sass_checks)
    send<messages::sass_actor, pipeline::sass_verdict>(self, sass_checker_name(st.next_sass_checker++ % std::max<std::size_t>(1, st.options.compilers)), order,
                              [self, id = id](pipeline::sass_verdict& v) { self->state.engine->checked(id, v); });
  for (auto& p : out.proposals)
    send<messages::proposer_actor, pipeline::proposal>(self, std::string{proposer_name}, p.request,
                                  [self, id = p.id](pipeline::proposal& answer) {
                                    if (answer.failure)
                                      return self->state.engine->proposed(id, unexpected{*answer.failure});
                                    self->state.engine->proposed(id, answer);
                                  });
  for (auto& r : out.races)
    send<messages::gpu_worker_actor, messages::race_reply>(self, gpu_worker_name(r.gpu), messages::race_order{r.ref, r.request, 0},
                                    [self, id = r.id, gpu = r.gpu](messages::race_reply& reply) {
                                      if (reply.service == messages::worker_service::out_of_service)
                                        return self->state.engine->gpu_out_of_service(id, gpu, reply.why_out_of_service);
                                      self->state.engine->raced(id, reply.device, reply.result, reply.wall_s);
                                    });
  // Profiles for one GPU in the same outbox go as one batch (the engine gives a GPU several at
  // once: their counters are read in one range profiler session).
  std::map<int, std::vector<pipeline::profile_dispatch*>> by_gpu;
  for (auto& p : out.profiles)
    by_gpu[p.device.ordinal].push_back(&p);
  for (auto& [gpu, profiles] : by_gpu) {
    if (profiles.size() == 1) {
      auto& p = *profiles.front();
      send<messages::profiler_actor, pipeline::diagnosis_summary>(self, std::string{profiler_name},
                                    messages::profile_order{p.ref, p.device, p.launch, p.metrics_path, p.tool},
                                    [self, id = p.id](pipeline::diagnosis_summary& s) { self->state.engine->profiled(id, s); });
      continue;
    }
    messages::profile_batch_order batch;
    std::vector<pipeline::ticket> ids;
    for (auto* p : profiles) {
      batch.orders.push_back(messages::profile_order{p->ref, p->device, p->launch, p->metrics_path, p->tool});
      ids.push_back(p->id);
    }
    send<messages::profiler_actor, messages::profile_batch_reply>(self, std::string{profiler_name}, std::move(batch),
                                  [self, ids](messages::profile_batch_reply& reply) {
                                    for (std::size_t i = 0; i < ids.size() && i < reply.summaries.size(); ++i)
                                      self->state.engine->profiled(ids[i], reply.summaries[i]);
                                  });
  }
}

// The proposer answers a proposal carrying its failure when it cannot propose: that is the job's
// failure, not a crash to wait out. (An error, a dead proposer, is repeated by ask().)
void finish_if_done(self_pointer self) {
  auto& st = self->state;
  if (!st.engine || !st.engine->finished() || st.writes_in_flight > 0 || st.waiting.empty())
    return;
  auto result = st.engine->result();
  if (!st.failed_jobs.empty() && result.kind == pipeline::campaign_result_kind::finished) {
    result.kind = pipeline::campaign_result_kind::failed;
    result.reason = st.failed_jobs.front();
  }
  for (auto& promise : st.waiting)
    promise.deliver(result);
  st.waiting.clear();
}

void flush(self_pointer self) {
  auto& st = self->state;
  if (!st.engine)
    return;
  auto out = st.engine->take_outbox();
  for (const auto& w : out.writes)
    write(self, w);
  for (auto& e : out.events) {
    e.campaign = st.plan->name;
    emit(self->system(), std::move(e));
  }
  send_orders(self, out);
  finish_if_done(self);
}

// A campaign the store already knows (resumed, or this scheduler restarted mid-way): its rows are
// read back once every write queued before the flush is durable.
void start_from_store(self_pointer self) {
  ask<messages::store_actor, std::int64_t>(self, self->state.asks, std::string{store_name}, messages::flush_atom::value,
                                          [self](std::int64_t) {
            auto& st = self->state;
            auto earlier = report::load_report(st.plan->run_dir);
            std::vector<pipeline::store_write> failures;
            std::vector<feed::event> events;
            if (earlier)
              st.begin(*st.plan, pipeline::earlier_run{std::move(*earlier)}, failures, events);
            else
              st.begin(*st.plan, std::nullopt, failures, events);
            for (const auto& w : failures)
              write(self, w);
            for (auto& e : events)
              emit(self->system(), std::move(e));
            flush(self);
          });
}

} // namespace

void scheduler_state::begin(const messages::campaign_plan& p, const std::optional<pipeline::earlier_run>& earlier,
                            std::vector<pipeline::store_write>& failures, std::vector<feed::event>& failure_events) {
  if (!options.spec)
    throw std::logic_error("scheduler: started without the campaign spec");
  const auto& spec = *options.spec;
  if (p.spec_toml != spec.raw_text)
    throw std::logic_error("scheduler: the plan's spec text is not the spec this scheduler was started with");
  pipeline::campaign_setup setup;
  setup.run_dir = p.run_dir;
  setup.mode = p.mode;
  for (const auto& c : p.candidate_paths)
    setup.candidates.emplace_back(c);
  setup.timing = p.timing;
  setup.gpus = p.gpus;
  setup.why_no_gpu = p.why_no_gpu;
  setup.tuner_cache = options.tuner_cache;
  std::vector<pipeline::job_setup> jobs;
  for (std::size_t i = 0; i < spec.jobs.size(); ++i) {
    const auto& j = spec.jobs[i];
    const auto id = i < p.job_ids.size() ? p.job_ids[i] : 0;
    auto job = pipeline::open_job(j.name, j.problem_path, j.problem);
    if (!job) {
      failed_jobs.push_back(j.name + ": " + job.error());
      failures.push_back(storage::job_state_change{id, vocabulary::job_state::failed, job.error()});
      failure_events.push_back(pipeline::job_event(feed::event_type::job_failed, j.name, feed::no_iter,
                                                   feed::no_branch, feed::no_gpu,
                                                   feed::detail{}.add("reason", job.error()).json()));
      continue;
    }
    jobs.push_back(std::move(*job));
    setup.job_ids.push_back(id);
  }
  setup.spec = spec;
  const auto t0 = started;
  engine = std::make_unique<pipeline::campaign_engine>(std::move(setup), std::move(jobs), [t0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  engine->start(earlier);
}

messages::component_status scheduler_state::status() const {
  messages::component_status s;
  s.component = std::string{scheduler_name};
  s.state = engine && !engine->finished() ? messages::component_state::running : messages::component_state::starting;
  s.detail = plan ? plan->name : "";
  if (engine)
    s.counters = {{"open_jobs", static_cast<std::int64_t>(engine->open_jobs())},
                  {"busy_gpus", static_cast<std::int64_t>(engine->busy_gpus())},
                  {"writes_in_flight", static_cast<std::int64_t>(writes_in_flight)}};
  return s;
}

messages::scheduler_actor::behavior_type
scheduler(messages::scheduler_actor::stateful_pointer<scheduler_state> self, scheduler_options options) {
  keep_exception_text(self);
  self->state.options = std::move(options);
  self->state.started = std::chrono::steady_clock::now();
  self->delayed_send(self, self->state.options.tick, messages::tick_atom::value);
  self->set_down_handler([self](caf::down_msg& m) { self->state.asks.receiver_down(m.source); });
  return {
    [self](messages::campaign_plan& plan) -> caf::typed_response_promise<pipeline::campaign_result> {
      auto& st = self->state;
      auto promise = self->make_response_promise<pipeline::campaign_result>();
      st.waiting.push_back(promise);
      if (!st.plan) { // the first time this scheduler hears of the campaign
        st.plan = plan;
        start_from_store(self);
      }
      finish_if_done(self);
      return promise;
    },
    [self](messages::interrupt_atom) {
      if (self->state.engine)
        self->state.engine->interrupt("interrupted: stopped by a signal; resume with `warpforge resume`");
      flush(self);
    },
    [self](messages::tick_atom) {
      auto& st = self->state;
      st.asks.send_due();
      if (st.engine)
        st.engine->tick();
      flush(self);
      self->delayed_send(self, st.asks.any_due() ? st.options.retry_delay : st.options.tick,
                         messages::tick_atom::value);
    },
    [self](messages::gpu_joined& joined) {
      if (self->state.engine)
        self->state.engine->gpu_joined(joined.device);
      flush(self);
    },
    [self](messages::stop_atom) {
      if (self->state.engine && !self->state.engine->finished()) {
        self->state.engine->interrupt("interrupted: the campaign was stopped before its end; resume with `warpforge resume`");
        flush(self);
      }
      self->quit(caf::exit_reason::user_shutdown);
    },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
