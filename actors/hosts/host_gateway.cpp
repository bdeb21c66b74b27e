#include "actors/hosts/host_gateway.hpp"

#include "actors/exceptions.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/registry.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/after.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/spawn_options.hpp>
#include <caf/typed_response_promise.hpp>

#include <algorithm>

namespace warpforge::actors::hosts {

namespace {

using gateway_pointer = messages::host_actor::stateful_pointer<host_gateway_state>;

// How often an order is handed again to a local worker that crashed with it (the supervisor
// restarts the worker), and how long one is waited for while it restarts.
constexpr int worker_attempts = 3;
constexpr std::chrono::seconds worker_restart_wait{30};
constexpr std::chrono::milliseconds worker_poll{100};

bool offers(const host_gateway_config& config, int gpu) {
  return std::any_of(config.offer.devices.begin(), config.offer.devices.end(),
                     [gpu](const gpu::device_info& d) { return d.ordinal == gpu; });
}

messages::race_reply out_of_service(const messages::remote_race& r, const std::string& why) {
  messages::race_reply reply;
  reply.device.ordinal = r.gpu;
  reply.service = messages::worker_service::out_of_service;
  reply.why_out_of_service = why;
  for (std::size_t i = 0; i < r.order.request.kernels.size(); ++i) {
    gpu::kernel_result k;
    k.outcome = vocabulary::branch_outcome::not_run;
    k.detail = why;
    reply.result.kernels.push_back(std::move(k));
  }
  return reply;
}

// The local worker of `gpu` answers `order` (asked again after a crash, waited for while the
// supervisor restarts it); nullopt: it did not, `why` says so.
template <class Reply, class Order>
std::optional<Reply> ask_worker(caf::blocking_actor* self, int gpu, const Order& order, std::string& why) {
  for (int attempt = 0; attempt < worker_attempts; ++attempt) {
    const auto deadline = std::chrono::steady_clock::now() + worker_restart_wait;
    auto worker = lookup<messages::gpu_worker_actor>(self->system(), gpu_worker_name(gpu));
    while (!worker && std::chrono::steady_clock::now() < deadline) {
      self->receive(caf::after(worker_poll) >> [] {});
      worker = lookup<messages::gpu_worker_actor>(self->system(), gpu_worker_name(gpu));
    }
    if (!worker) {
      why = gpu_worker_name(gpu) + " of this host is not running";
      return std::nullopt;
    }
    std::optional<Reply> reply;
    self->request(worker, caf::infinite, order)
      .receive([&](Reply& r) { reply = std::move(r); },
               [&](caf::error& e) { why = gpu_worker_name(gpu) + " of this host failed: " + self->system().render(e); });
    if (reply)
      return reply;
  }
  return std::nullopt;
}

} // namespace

messages::component_status host_gateway_state::status() const {
  messages::component_status s;
  s.component = std::string{host_gateway_name};
  s.state = messages::component_state::running;
  s.detail = config.offer.host;
  s.counters = {{"races", races}, {"profiles", profiles}, {"refused", refused}};
  return s;
}

messages::host_actor::behavior_type host_gateway(gateway_pointer self, host_gateway_config config) {
  keep_exception_text(self);
  self->state.config = std::move(config);
  return {
    [self](messages::hello_atom) { return self->state.config.offer; },
    [](messages::heartbeat_atom) { return messages::heartbeat_atom::value; },
    [self](messages::remote_race& r) -> caf::typed_response_promise<messages::race_reply> {
      auto& st = self->state;
      auto promise = self->make_response_promise<messages::race_reply>();
      ++st.races;
      logging::get("host")->debug("race of {} kernel(s) for GPU {} ({} to build)", r.order.request.kernels.size(), r.gpu,
                                  r.builds.size());
      if (!offers(st.config, r.gpu)) {
        ++st.refused;
        promise.deliver(out_of_service(r, st.config.offer.host + " offers no GPU " + std::to_string(r.gpu)));
        return promise;
      }
      self->spawn<caf::detached>([promise, r = std::move(r), cfg = st.config](caf::blocking_actor* helper) mutable {
        auto request = r.order;
        if (auto built = pipeline::rebuild_on_host(request.request, r.builds, cfg.compile, cfg.kernel_dir); !built) {
          logging::get("host")->error("{}", built.error());
          promise.deliver(out_of_service(r, cfg.offer.host + ": " + built.error()));
          return;
        }
        std::string why;
        auto reply = ask_worker<messages::race_reply>(helper, r.gpu, request, why);
        promise.deliver(reply ? std::move(*reply) : out_of_service(r, cfg.offer.host + ": " + why));
      });
      return promise;
    },
    [self](messages::remote_profile_batch& p) -> caf::typed_response_promise<messages::metrics_batch_reply> {
      auto& st = self->state;
      auto promise = self->make_response_promise<messages::metrics_batch_reply>();
      st.profiles += static_cast<std::int64_t>(p.order.orders.size());
      auto every = [size = p.order.orders.size()](const std::string& why) {
        // said as a race's is: the coordinator gives them to another GPU
        return messages::metrics_batch_reply{std::vector<gpu::metric_set>(size, gpu::out_of_service_metrics(why))};
      };
      if (!offers(st.config, p.gpu)) {
        ++st.refused;
        promise.deliver(every(st.config.offer.host + " offers no GPU " + std::to_string(p.gpu)));
        return promise;
      }
      self->spawn<caf::detached>([promise, every, p = std::move(p), cfg = st.config](caf::blocking_actor* helper) mutable {
        auto batch = p.order;
        for (auto& order : batch.orders)
          if (auto built = pipeline::rebuild_on_host(order.launch, p.builds, cfg.compile, cfg.kernel_dir); !built) {
            promise.deliver(every(cfg.offer.host + ": " + built.error()));
            return;
          }
        std::string why;
        auto reply = ask_worker<messages::metrics_batch_reply>(helper, p.gpu, batch, why);
        promise.deliver(reply ? std::move(*reply) : every(cfg.offer.host + ": " + why));
      });
      return promise;
    },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors::hosts
