#include "actors/runtime.hpp"

#include "actors/campaign.hpp"
#include "actors/compiler.hpp"
#include "actors/emit.hpp"
#include "actors/profiler.hpp"
#include "actors/deployer.hpp"
#include "actors/llm.hpp"
#include "actors/proposer.hpp"
#include "actors/registry.hpp"
#include "actors/sass_checker.hpp"
#include "actors/store.hpp"
#include "actors/supervisor.hpp"
#include "foundation/logging/logging.hpp"
#include "messages/type_ids.hpp"

#include <caf/actor_cast.hpp>
#include <caf/after.hpp>
#include <caf/send.hpp>
#include <caf/spawn_options.hpp>

#include <algorithm>
#include <thread>

namespace warpforge::actors {

system_config::system_config() {
  add_message_types<caf::id_block::warpforge>();
  // Small pool: actors hand blocking work to detached actors; the pool only routes messages.
  const auto threads = std::max(2u, std::min(4u, std::thread::hardware_concurrency()));
  set("scheduler.max-threads", static_cast<std::size_t>(threads));
}

namespace {

template <class Handle>
caf::actor untyped(Handle h) {
  return caf::actor_cast<caf::actor>(std::move(h));
}

// Every actor of the pipeline, in start order (the supervisor stops them in reverse).
std::vector<child_spec> pipeline_children(const runtime_options& options) {
  std::vector<child_spec> children;
  children.push_back({std::string{store_name}, [db = options.database](caf::actor_system& sys) {
                        return untyped(sys.spawn<caf::detached>(store, db));
                      }});
  children.push_back({std::string{feed_name}, [feed_opts = options.feed](caf::actor_system& sys) {
                        return untyped(sys.spawn<caf::detached>(feed, feed_opts));
                      }});
  if (options.deployer || options.pipeline)
    children.push_back({std::string{deployer_name},
                        [](caf::actor_system& sys) { return untyped(sys.spawn(deployer)); }});
  if (options.calibrate)
    for (auto& child : calibrate_children(*options.calibrate))
      children.push_back(std::move(child));
  if (!options.pipeline)
    return children;
  const auto& p = *options.pipeline;
  for (std::size_t i = 0; i < p.compilers; ++i)
    children.push_back({compiler_name(i), [name = compiler_name(i), compile = p.compile](caf::actor_system& sys) {
                          return untyped(sys.spawn<caf::detached>(compiler, name, compile));
                        }});
  for (std::size_t i = 0; i < p.compilers; ++i) // a disassembly per candidate, side by side as its compile
    children.push_back({sass_checker_name(i), [name = sass_checker_name(i)](caf::actor_system& sys) {
                          return untyped(sys.spawn<caf::detached>(sass_checker, name));
                        }});
  if (p.model)
    children.push_back({std::string{llm_name}, [model = p.model](caf::actor_system& sys) {
                          return untyped(sys.spawn(llm, model));
                        }});
  children.push_back({std::string{proposer_name},
                      [config = proposer_config{p.proposer, p.llm, p.compile, p.problems}](caf::actor_system& sys) {
                        return untyped(sys.spawn(proposer, config));
                      }});
  for (const auto& worker : p.workers)
    children.push_back({gpu_worker_name(worker.device.ordinal), [worker](caf::actor_system& sys) {
                          return untyped(sys.spawn<caf::detached>(gpu_worker, worker));
                        }});
  children.push_back({std::string{profiler_name}, [](caf::actor_system& sys) { return untyped(sys.spawn(profiler)); }});
  children.push_back({std::string{scheduler_name}, [o = p.scheduler, spec = p.spec, compilers = p.compilers](caf::actor_system& sys) {
                        auto with_spec = o;
                        with_spec.spec = spec;
                        with_spec.compilers = compilers; // the compile.N and sass.N spawned above
                        return untyped(sys.spawn(scheduler, std::move(with_spec)));
                      }});
  children.push_back({std::string{campaign_name}, [spec = p.spec](caf::actor_system& sys) {
                        return untyped(sys.spawn(campaign, spec));
                      }});
  return children;
}

} // namespace

expected<std::unique_ptr<runtime>, std::string> runtime::start(runtime_options options) {
  std::unique_ptr<runtime> rt{new runtime};
  rt->config_ = std::make_unique<system_config>();
  if (options.pipeline && options.pipeline->configure)
    options.pipeline->configure(*rt->config_);
  rt->system_ = std::make_unique<caf::actor_system>(*rt->config_);
  rt->self_ = std::make_unique<caf::scoped_actor>(*rt->system_);

  auto children = pipeline_children(options);
  rt->supervisor_ = rt->system_->spawn(supervisor, options.supervision, std::move(children),
                                       caf::actor_cast<caf::actor>(*rt->self_), default_stop_grace);

  // A first answer from the supervisor means its children are spawned and registered. The feed
  // answers its endpoint once it is bound and knows where the sequence resumes; an error here
  // means the store or the feed could not start.
  std::string problem;
  if (auto r = rt->report(); !r)
    problem = "the supervisor did not start: " + r.error();
  // The feed may fail to start and be restarted by the supervisor; wait for either an answer
  // or the supervisor's verdict, whose reason names the real cause (a taken port, say).
  const auto deadline = std::chrono::steady_clock::now() + request_timeout;
  while (problem.empty() && rt->feed_endpoint_.empty()) {
    {
      // Scoped: a strong handle to a detached actor that outlives the system would block its
      // shutdown (stop() below destroys the system).
      auto feed_handle = lookup<messages::feed_actor>(*rt->system_, feed_name);
      if (feed_handle)
        (*rt->self_)
          ->request(feed_handle, request_timeout, messages::endpoint_atom::value)
          .receive([&](std::string& endpoint) { rt->feed_endpoint_ = std::move(endpoint); },
                   [](caf::error&) {});
    }
    if (!rt->feed_endpoint_.empty())
      break;
    (*rt->self_)->receive(
      [&](messages::supervision_failed& f) {
        problem = f.reason;
        rt->failure_ = std::move(f);
      },
      caf::after(feed_start_poll) >> [] {});
    if (problem.empty() && std::chrono::steady_clock::now() > deadline)
      problem = "the feed did not start within " + std::to_string(request_timeout.count()) + " s";
  }
  if (!problem.empty()) {
    rt->stop();
    return unexpected{problem};
  }
  return rt;
}

runtime::~runtime() {
  stop();
}

template <class Record>
expected<std::int64_t, std::string> runtime::record(const Record& r) {
  auto store_handle = lookup<messages::store_actor>(*system_, store_name);
  if (!store_handle)
    return unexpected{std::string{"the store is not running"}};
  expected<std::int64_t, std::string> result = unexpected{std::string{"no answer"}};
  (*self_)->request(store_handle, request_timeout, r)
    .receive([&](std::int64_t id) { result = id; },
             [&](caf::error& err) { result = unexpected{system_->render(err)}; });
  return result;
}

template expected<std::int64_t, std::string> runtime::record(const storage::campaign_record&);
template expected<std::int64_t, std::string> runtime::record(const storage::job_record&);
template expected<std::int64_t, std::string> runtime::record(const storage::campaign_state_change&);
template expected<std::int64_t, std::string> runtime::record(const storage::job_state_change&);
template expected<std::int64_t, std::string> runtime::record(const storage::iteration_update&);
template expected<std::int64_t, std::string> runtime::record(const storage::branch_record&);
template expected<std::int64_t, std::string> runtime::record(const storage::branch_outcome_change&);
template expected<std::int64_t, std::string> runtime::record(const storage::measurement_record&);

expected<messages::calibration_end, std::string> runtime::calibrate(const messages::calibration_order& order,
                                                                    const std::function<bool()>& interrupted) {
  auto& self = *self_;
  std::optional<messages::calibration_end> end;
  caf::actor_addr told; // the calibrator told of the interrupt (a restarted one is told again)
  auto missing_since = std::chrono::steady_clock::now();
  // Asked again every poll, as run() asks the campaign actor: the calibrator keeps one answer per
  // asker, and a restarted one continues from the run directory.
  while (!end) {
    if (auto gave_up = failure())
      return unexpected{gave_up->reason};
    auto calibrator_handle = lookup<messages::calibrator_actor>(*system_, calibrator_name);
    if (!calibrator_handle) {
      if (std::chrono::steady_clock::now() - missing_since > request_timeout)
        return unexpected{std::string{"no calibrator is running"}};
      self->receive(caf::after(campaign_poll) >> [] {});
      continue;
    }
    missing_since = std::chrono::steady_clock::now();
    if (interrupted() && told != calibrator_handle.address()) {
      self->send(calibrator_handle, messages::interrupt_atom::value);
      told = calibrator_handle.address();
    }
    self->request(calibrator_handle, campaign_poll, order)
      .receive([&](messages::calibration_end& e) { end = std::move(e); }, [](caf::error&) {});
  }
  return std::move(*end);
}

expected<messages::deploy_answer, std::string> runtime::deploy(const messages::deploy_order& order) {
  auto deployer_handle = lookup<messages::deployer_actor>(*system_, deployer_name);
  if (!deployer_handle)
    return unexpected{std::string{"no deployer is running"}};
  expected<messages::deploy_answer, std::string> result = unexpected{std::string{"no answer"}};
  (*self_)->request(deployer_handle, caf::infinite, order)
    .receive([&](messages::deploy_answer& a) { result = std::move(a); },
             [&](caf::error& err) { result = unexpected{system_->render(err)}; });
  return result;
}

expected<pipeline::campaign_result, std::string> runtime::run(const messages::campaign_plan& plan,
                                                              const std::function<bool()>& interrupted) {
  auto& self = *self_;
  std::optional<pipeline::campaign_result> result;
  bool interrupt_sent = false;
  // Asked again every poll: in between, the interrupt flag and the supervisor are looked at. The
  // campaign actor keeps one answer per asker, and a restarted one finds its rows in the store.
  while (!result) {
    if (auto gave_up = failure())
      return unexpected{gave_up->reason};
    auto campaign_handle = lookup<messages::campaign_actor>(*system_, campaign_name);
    if (campaign_handle && interrupted() && !interrupt_sent) {
      self->send(campaign_handle, messages::interrupt_atom::value);
      interrupt_sent = true;
    }
    if (!campaign_handle) {
      self->receive(caf::after(campaign_poll) >> [] {});
      continue;
    }
    self->request(campaign_handle, campaign_poll, plan)
      .receive([&](pipeline::campaign_result& r) { result = std::move(r); }, [](caf::error&) {});
  }
  return std::move(*result);
}

void runtime::emit(feed::event e) {
  actors::emit(*system_, std::move(e));
}

bool runtime::wait_for_subscribers(std::uint32_t subscriptions, std::chrono::duration<double> timeout) {
  auto feed_handle = lookup<messages::feed_actor>(*system_, feed_name);
  if (!feed_handle)
    return false;
  bool joined = false;
  const auto deadline = std::chrono::duration_cast<caf::timespan>(timeout) + request_timeout;
  (*self_)
    ->request(feed_handle, deadline, messages::wait_atom::value, subscriptions, timeout.count())
    .receive([&](bool ok) { joined = ok; }, [](caf::error&) {});
  return joined;
}

expected<messages::supervision_report, std::string> runtime::report() {
  expected<messages::supervision_report, std::string> result = unexpected{std::string{"no answer"}};
  (*self_)
    ->request(supervisor_, request_timeout, messages::status_atom::value)
    .receive([&](messages::supervision_report& r) { result = std::move(r); },
             [&](caf::error& err) { result = unexpected{system_->render(err)}; });
  return result;
}

std::optional<messages::supervision_failed> runtime::failure() {
  if (!failure_ && self_) {
    bool more = true;
    while (more)
      (*self_)->receive([&](messages::supervision_failed& f) { failure_ = std::move(f); },
                        caf::after(std::chrono::seconds{0}) >> [&] { more = false; });
  }
  return failure_;
}

void runtime::stop() {
  if (stopped_ || !system_)
    return;
  stopped_ = true;
  (*self_)
    ->request(supervisor_, stop_timeout, messages::stop_atom::value)
    .receive([](bool) {},
             [&](caf::error& err) {
               // Already gone (it gave up and stopped its children) or stuck: say which.
               if (err != caf::sec::request_receiver_down)
                 logging::get("runtime")->warn("stop: {}", system_->render(err));
             });
  failure();
  self_.reset();
  system_.reset();
}

} // namespace warpforge::actors
