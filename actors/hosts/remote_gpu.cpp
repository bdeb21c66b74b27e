#include "actors/hosts/remote_gpu.hpp"

#include "actors/exceptions.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/hosts/network.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/exit_reason.hpp>

#include <functional>
#include <iterator>

namespace warpforge::actors::hosts {

namespace {

using remote_pointer = remote_gpu_actor::stateful_pointer<remote_gpu_state>;

// Ask the host whether it is there; no answer in time: lost. One chain of heartbeats at a time:
// it ends when the host is lost and starts again when the hub points this GPU at a new gateway.
void heartbeat(remote_pointer self) {
  auto& st = self->state;
  if (!st.lost.empty()) {
    st.beating = false;
    return;
  }
  st.beating = true;
  const auto host = st.config.host;
  self->request(host, heartbeat_timeout, messages::heartbeat_atom::value)
    .then([self](messages::heartbeat_atom) { self->delayed_send(self, heartbeat_interval, messages::restart_atom::value); },
          [self, host](caf::error& e) {
            if (host != self->state.config.host) // the answer of a gateway replaced since
              return heartbeat(self);
            self->state.lose("host " + self->state.config.host_name + " did not answer its heartbeat within " +
                             std::to_string(heartbeat_timeout.count()) + " ms (" + self->system().render(e) + ")");
            self->state.beating = false;
          });
}

// Sends `batch` to the host whole, with its kernels' builds: its worker reads their counters in
// one range profiler session. `answer` gets a metric set per order, or every one out of service
// (the host is lost, a kernel's build cannot be shipped) so that another GPU profiles them.
void profile_on_host(remote_pointer self, messages::metrics_batch_order batch,
                     std::function<void(messages::metrics_batch_reply)> answer) {
  auto& st = self->state;
  st.profiles += static_cast<std::int64_t>(batch.orders.size());
  auto every = [size = batch.orders.size()](const std::string& why) {
    return messages::metrics_batch_reply{std::vector<gpu::metric_set>(size, gpu::out_of_service_metrics(why))};
  };
  if (!st.lost.empty()) {
    ++st.given_back;
    return answer(every(st.lost));
  }
  std::vector<pipeline::kernel_build> builds;
  for (const auto& order : batch.orders) {
    auto some = st.config.ledger->builds_for(order.launch);
    if (!some)
      return answer(every(some.error()));
    builds.insert(builds.end(), std::make_move_iterator(some->begin()), std::make_move_iterator(some->end()));
  }
  const auto id = st.next_order++;
  st.in_flight[id] = [self, answer, every](const std::string& why) {
    ++self->state.given_back;
    answer(every(why));
  };
  self->request(st.config.host, caf::infinite,
                messages::remote_profile_batch{std::move(batch), st.config.host_ordinal, std::move(builds)})
    .then(
      [self, id, answer](messages::metrics_batch_reply& reply) {
        if (self->state.in_flight.erase(id) != 0)
          answer(std::move(reply));
      },
      [self](caf::error& e) {
        self->state.lose("host " + self->state.config.host_name + " failed: " + self->system().render(e));
      });
}

} // namespace

void remote_gpu_state::lose(const std::string& why) {
  if (!lost.empty())
    return;
  lost = why;
  logging::get("hosts")->warn("{}: {}; {} order(s) in flight go back to the queue", gpu_worker_name(config.device.ordinal),
                              why, in_flight.size());
  for (auto& [id, answer] : std::exchange(in_flight, {}))
    answer(why);
}

messages::race_reply remote_gpu_state::out_of_service(const messages::race_order& order, const std::string& why) const {
  messages::race_reply reply;
  reply.device = config.device;
  reply.service = messages::worker_service::out_of_service;
  reply.why_out_of_service = why;
  for (std::size_t i = 0; i < order.request.kernels.size(); ++i) {
    gpu::kernel_result k;
    k.outcome = vocabulary::branch_outcome::not_run;
    k.detail = why;
    reply.result.kernels.push_back(std::move(k));
  }
  return reply;
}

messages::component_status remote_gpu_state::status() const {
  messages::component_status s;
  s.component = gpu_worker_name(config.device.ordinal);
  s.state = lost.empty() ? messages::component_state::running : messages::component_state::failed;
  s.detail = lost.empty() ? config.device.name + " on " + config.host_name : lost;
  s.counters = {{"races", races}, {"profiles", profiles}, {"given_back", given_back},
                {"in_flight", static_cast<std::int64_t>(in_flight.size())}};
  return s;
}

remote_gpu_actor::behavior_type remote_gpu(remote_pointer self, remote_gpu_config config) {
  keep_exception_text(self);
  self->state.config = std::move(config);
  self->monitor(self->state.config.host);
  self->set_down_handler([self](caf::down_msg& m) {
    if (m.source == self->state.config.host.address())
      self->state.lose("host " + self->state.config.host_name + " is lost (" + self->system().render(m.reason) + ")");
  });
  heartbeat(self);
  return {
    [self](messages::race_order& order) -> caf::typed_response_promise<messages::race_reply> {
      auto& st = self->state;
      auto promise = self->make_response_promise<messages::race_reply>();
      ++st.races;
      if (!st.lost.empty()) {
        ++st.given_back;
        promise.deliver(st.out_of_service(order, st.lost));
        return promise;
      }
      auto builds = st.config.ledger->builds_for(order.request);
      if (!builds) { // a CUBIN the coordinator did not make: no host can build it
        promise.deliver(st.out_of_service(order, builds.error()));
        return promise;
      }
      const auto id = st.next_order++;
      logging::get("hosts")->debug("{}: race of {} kernel(s) to host {}", gpu_worker_name(st.config.device.ordinal),
                                   order.request.kernels.size(), st.config.host_name);
      st.in_flight[id] = [self, promise, order](const std::string& why) mutable {
        ++self->state.given_back;
        promise.deliver(self->state.out_of_service(order, why));
      };
      self->request(st.config.host, caf::infinite, messages::remote_race{order, st.config.host_ordinal, std::move(*builds)})
        .then(
          [self, id, promise](messages::race_reply& reply) mutable {
            if (self->state.in_flight.erase(id) == 0)
              return; // answered out of service already
            reply.device.ordinal = self->state.config.device.ordinal;
            promise.deliver(std::move(reply));
          },
          [self](caf::error& e) {
            self->state.lose("host " + self->state.config.host_name + " failed: " + self->system().render(e));
          });
      return promise;
    },
    [self](messages::metrics_order& order) -> caf::typed_response_promise<gpu::metric_set> {
      auto promise = self->make_response_promise<gpu::metric_set>();
      profile_on_host(self, messages::metrics_batch_order{{std::move(order)}},
                      [promise](messages::metrics_batch_reply reply) mutable { promise.deliver(std::move(reply.sets.front())); });
      return promise;
    },
    // Lost with the host, every profile of a batch comes back out of service.
    [self](messages::metrics_batch_order& batch) -> caf::typed_response_promise<messages::metrics_batch_reply> {
      auto promise = self->make_response_promise<messages::metrics_batch_reply>();
      profile_on_host(self, std::move(batch),
                      [promise](messages::metrics_batch_reply reply) mutable { promise.deliver(std::move(reply)); });
      return promise;
    },
    [self](messages::program_order&) {
      messages::program_reply reply;
      reply.device = self->state.config.device;
      reply.status = messages::program_run_status::out_of_service;
      reply.detail = "a remote host's GPU runs races and profiles only; calibrate measures on local GPUs";
      return reply;
    },
    [self](messages::counter_order&) {
      messages::counter_reply reply;
      reply.device = self->state.config.device;
      reply.verdict = "not validated: a remote host's GPU runs races and profiles only";
      return reply;
    },
    [self](messages::query_atom) { return self->state.config.device; },
    [self](messages::restart_atom) { heartbeat(self); }, // the heartbeat's timer
    [self](messages::host_join_atom, caf::actor& gateway) { // its host came back
      auto& st = self->state;
      self->demonitor(st.config.host.address());
      st.config.host = caf::actor_cast<messages::host_actor>(gateway);
      self->monitor(st.config.host);
      st.lost.clear();
      if (!st.beating)
        heartbeat(self);
    },
    [self](messages::stop_atom) { // the campaign's end: nothing is in flight then, or it ends interrupted
      auto& st = self->state;
      st.lost = "the coordinator stopped " + gpu_worker_name(st.config.device.ordinal);
      for (auto& [id, answer] : std::exchange(st.in_flight, {}))
        answer(st.lost);
      self->quit(caf::exit_reason::user_shutdown);
    },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors::hosts
