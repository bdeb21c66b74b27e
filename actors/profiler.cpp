#include "actors/profiler.hpp"

#include "actors/exceptions.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/registry.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/diagnose_metrics.hpp"

#include <caf/exit_reason.hpp>
#include <caf/typed_response_promise.hpp>

namespace warpforge::actors {

pipeline::diagnosis_summary profiler_state::finish(const messages::profile_order& order, const gpu::metric_set& metrics) {
  ++profiles;
  // Out of service: nothing was profiled, nothing is kept.
  if (!order.metrics_path.empty() && metrics.service == gpu::worker_service::in_service)
    if (auto written = pipeline::write_metric_file(order.metrics_path, {metrics, order.device}); !written)
      logging::get("profiler")->warn("{}", written.error());
  auto summary = pipeline::summarize_metrics(metrics, order.device, order.ref);
  diagnosed += summary.diagnosed;
  return summary;
}

messages::component_status profiler_state::status() const {
  return {std::string{profiler_name}, messages::component_state::running, "counters, then roofline and rules",
          {{"profiles", profiles}, {"diagnosed", diagnosed}}};
}

messages::profiler_actor::behavior_type profiler(messages::profiler_actor::stateful_pointer<profiler_state> self) {
  keep_exception_text(self);
  return {
    [self](messages::profile_order& order) -> caf::typed_response_promise<pipeline::diagnosis_summary> {
      auto promise = self->make_response_promise<pipeline::diagnosis_summary>();
      auto worker = lookup<messages::gpu_worker_actor>(self->system(), gpu_worker_name(order.device.ordinal));
      if (!worker) {
        gpu::metric_set none;
        none.note = "no worker for GPU " + std::to_string(order.device.ordinal);
        promise.deliver(self->state.finish(order, none));
        return promise;
      }
      self->request(worker, caf::infinite, messages::metrics_order{order.ref, order.launch, {}, order.tool})
        .then([self, promise, order](gpu::metric_set& metrics) mutable {
                promise.deliver(self->state.finish(order, metrics));
              },
              [self, promise, order](caf::error& e) mutable {
                gpu::metric_set none;
                none.note = "the GPU worker did not answer: " + self->system().render(e);
                promise.deliver(self->state.finish(order, none));
              });
      return promise;
    },
    // Several profiles of one GPU: its worker reads their counters in one batch.
    [self](messages::profile_batch_order& batch) -> caf::typed_response_promise<messages::profile_batch_reply> {
      auto promise = self->make_response_promise<messages::profile_batch_reply>();
      auto answer_all = [self, promise, batch](const std::vector<gpu::metric_set>& sets) mutable {
        messages::profile_batch_reply reply;
        for (std::size_t i = 0; i < batch.orders.size(); ++i)
          reply.summaries.push_back(self->state.finish(batch.orders[i], sets[i]));
        promise.deliver(std::move(reply));
      };
      auto nothing = [size = batch.orders.size()](const std::string& why) {
        gpu::metric_set none;
        none.note = why;
        return std::vector<gpu::metric_set>(size, none);
      };
      if (batch.orders.empty()) {
        answer_all({});
        return promise;
      }
      const int ordinal = batch.orders.front().device.ordinal;
      auto worker = lookup<messages::gpu_worker_actor>(self->system(), gpu_worker_name(ordinal));
      if (!worker) {
        answer_all(nothing("no worker for GPU " + std::to_string(ordinal)));
        return promise;
      }
      messages::metrics_batch_order metrics;
      for (const auto& order : batch.orders)
        metrics.orders.push_back(messages::metrics_order{order.ref, order.launch, {}, order.tool});
      const auto size = batch.orders.size();
      self->request(worker, caf::infinite, std::move(metrics))
        .then(
          [answer_all, size, nothing](messages::metrics_batch_reply& reply) mutable {
            if (reply.sets.size() != size)
              return answer_all(nothing("the GPU worker answered " + std::to_string(reply.sets.size()) + " metric sets for " +
                                        std::to_string(size) + " profiles"));
            answer_all(reply.sets);
          },
          [self, answer_all, nothing](caf::error& e) mutable {
            answer_all(nothing("the GPU worker did not answer: " + self->system().render(e)));
          });
      return promise;
    },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
