#include "actors/runtime.hpp"

#include "actors/emit.hpp"
#include "actors/registry.hpp"
#include "actors/store.hpp"
#include "actors/supervisor.hpp"
#include "logging/logging.hpp"
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

expected<std::unique_ptr<runtime>, std::string> runtime::start(runtime_options options) {
  std::unique_ptr<runtime> rt{new runtime};
  rt->config_ = std::make_unique<system_config>();
  rt->system_ = std::make_unique<caf::actor_system>(*rt->config_);
  rt->self_ = std::make_unique<caf::scoped_actor>(*rt->system_);

  std::vector<child_spec> children;
  children.push_back({std::string{store_name}, [db = options.database](caf::actor_system& sys) {
                        return caf::actor_cast<caf::actor>(sys.spawn<caf::detached>(store, db));
                      }});
  children.push_back({std::string{feed_name}, [feed_opts = options.feed](caf::actor_system& sys) {
                        return caf::actor_cast<caf::actor>(sys.spawn<caf::detached>(feed, feed_opts));
                      }});
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

namespace {

template <class Request>
expected<std::int64_t, std::string> ask_store(caf::actor_system& sys, caf::scoped_actor& self,
                                              const Request& request) {
  auto store_handle = lookup<messages::store_actor>(sys, store_name);
  if (!store_handle)
    return unexpected{std::string{"the store is not running"}};
  expected<std::int64_t, std::string> result = unexpected{std::string{"no answer"}};
  self->request(store_handle, request_timeout, request)
    .receive([&](std::int64_t id) { result = id; },
             [&](caf::error& err) { result = unexpected{sys.render(err)}; });
  return result;
}

} // namespace

expected<std::int64_t, std::string> runtime::record(const messages::campaign_record& r) {
  return ask_store(*system_, *self_, r);
}

expected<std::int64_t, std::string> runtime::record(const messages::job_record& r) {
  return ask_store(*system_, *self_, r);
}

expected<std::int64_t, std::string> runtime::record(const messages::iteration_record& r) {
  return ask_store(*system_, *self_, r);
}

expected<std::int64_t, std::string> runtime::record(const messages::branch_record& r) {
  return ask_store(*system_, *self_, r);
}

expected<std::int64_t, std::string> runtime::record(const messages::measurement_record& r) {
  return ask_store(*system_, *self_, r);
}

namespace {

template <class Change>
void tell_store(caf::actor_system& sys, const Change& change) {
  if (auto s = lookup<messages::store_actor>(sys, store_name))
    caf::anon_send(s, change);
}

} // namespace

void runtime::record(const messages::campaign_state_change& c) {
  tell_store(*system_, c);
}

void runtime::record(const messages::job_state_change& c) {
  tell_store(*system_, c);
}

void runtime::record(const messages::branch_outcome_change& c) {
  tell_store(*system_, c);
}

void runtime::record(const messages::iteration_update& u) {
  tell_store(*system_, u);
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
