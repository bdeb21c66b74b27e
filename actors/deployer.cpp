#include "actors/deployer.hpp"

#include "actors/emit.hpp"
#include "actors/exceptions.hpp"
#include "actors/registry.hpp"
#include "deploy/deploy_records.hpp"
#include "deploy/plan_from_run.hpp"
#include "foundation/logging/logging.hpp"
#include "messages/store.hpp"
#include "pipeline/llm/deploy_fix.hpp"
#include "pipeline/records.hpp"

#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>

namespace warpforge::actors {

namespace {

/// How long a worker waits for the store to make one row durable.
constexpr std::chrono::seconds store_timeout{30};

// Writes one row through the store actor and waits until it is durable: a deploy's steps must be
// in the store before the next one changes the user's project.
template <class Row>
void store_row(caf::actor_system& system, const Row& row) {
  auto store = lookup<messages::store_actor>(system, store_name);
  if (!store) {
    logging::get("deployer")->warn("no store running; a deploy row is lost");
    return;
  }
  caf::scoped_actor self{system};
  self->request(store, store_timeout, row)
    .receive([](std::int64_t) {},
             [&](caf::error& e) { logging::get("deployer")->warn("store: {}", system.render(e)); });
}

// Every step, as it ends: its row, then its event.
class recording_sink final : public deploy::deploy_sink {
public:
  recording_sink(caf::actor_system& system, const deploy::deploy_request& request)
      : system_(system), request_(request) {}
  void step(const deploy::step_record& record) override {
    store_row(system_, deploy::step_row(request_, ++seq_, record));
    emit(system_, deploy::step_event(record));
  }

private:
  caf::actor_system& system_;
  const deploy::deploy_request& request_;
  std::int64_t seq_ = 0;
};

messages::deploy_answer answer_of(const deploy::deploy_report& report, const deploy::deploy_request& request) {
  messages::deploy_answer a;
  a.outcome = report.outcome;
  a.reason = report.reason;
  a.work_dir = request.work_dir.string();
  if (report.before) {
    a.has_before = true;
    a.before_median = report.before->median;
    a.before_spread = report.before->spread;
    a.unit = report.before->unit;
  }
  if (report.after) {
    a.has_after = true;
    a.after_median = report.after->median;
    a.after_spread = report.after->spread;
    a.unit = report.after->unit;
  }
  return a;
}

// With an [llm] in the run's campaign, a champion that does not build goes to the model
// (pipeline/llm/deploy_fix.hpp); the fix's log, to account its calls once the deploy ends.
std::shared_ptr<pipeline::deploy_fix_log> attach_fixer(caf::actor_system& system, deploy::deploy_request& request) {
  auto fixer = pipeline::deploy_fixer_for_run({request.run_dir, request.job, request.target.build,
                                               request.target.relative_file.string(), request.target.region,
                                               request.work_dir});
  if (!fixer) { // the deploy goes on without it: a build failure rolls back, as with no [llm]
    logging::get("deployer")->warn("{}", fixer.error());
    emit(system, pipeline::job_event(feed::event_type::warning, request.job, 0, feed::no_branch, feed::no_gpu,
                                     feed::detail{}.add("message", fixer.error()).add("component", "deployer").json()));
    return nullptr;
  }
  if (!*fixer)
    return nullptr;
  request.fix_build = (*fixer)->fix;
  request.fix_tries = (*fixer)->tries;
  return (*fixer)->log;
}

messages::deploy_answer deploy_now(caf::actor_system& system, const messages::deploy_order& order) {
  const deploy::deploy_choice choice{order.run_dir, order.job, order.source};
  const auto now = std::chrono::system_clock::now();
  auto request = order.recover ? deploy::plan_recovery(choice, now) : deploy::plan_deploy(choice, now);
  if (!request)
    return {std::nullopt, request.error(), "", false, 0, 0, false, 0, 0, ""};
  store_row(system, deploy::deployment_row(*request));
  auto fix_log = order.recover ? nullptr : attach_fixer(system, *request);
  recording_sink sink{system, *request};
  auto report = order.recover ? deploy::recover(request->target, request->work_dir, sink, request->job)
                              : deploy::run_deploy(*request, sink);
  store_row(system, deploy::result_row(*request, report));
  if (fix_log) // its calls on the feed (the store's llm_calls rows are per iteration)
    for (const auto& e : pipeline::deploy_fix_events(request->job, *fix_log))
      emit(system, e);
  if (auto closed = deploy::interrupted_row(*request, report)) // the killed deploy's row, ended
    store_row(system, *closed);
  emit(system, deploy::finished_event(*request, report));
  return answer_of(report, *request);
}

// One order: deploy, tell the deployer how it ended, answer, quit.
messages::deploy_worker_actor::behavior_type deploy_worker(messages::deploy_worker_actor::pointer self,
                                                           messages::deployer_actor parent) {
  return {
    [self, parent](const messages::deploy_order& order) {
      auto answer = deploy_now(self->system(), order);
      self->send(parent, messages::deploy_done{answer.outcome});
      self->quit();
      return answer;
    },
  };
}

} // namespace

messages::component_status deployer_state::status() const {
  return {std::string{deployer_name}, messages::component_state::running, "",
          {{"deploys", deploys}, {"accepted", accepted}, {"in_flight", in_flight}}};
}

messages::deployer_actor::behavior_type deployer(messages::deployer_actor::stateful_pointer<deployer_state> self) {
  keep_exception_text(self);
  return {
    [self](const messages::deploy_order& order) -> caf::result<messages::deploy_answer> {
      ++self->state.deploys;
      ++self->state.in_flight;
      auto worker = self->spawn<caf::detached>(deploy_worker, messages::deployer_actor{self});
      return self->delegate(worker, order);
    },
    [self](const messages::deploy_done& done) {
      --self->state.in_flight;
      if (done.outcome == deploy::deploy_outcome::accepted)
        ++self->state.accepted;
    },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
