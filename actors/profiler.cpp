#include "actors/profiler.hpp"

#include "actors/exceptions.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/registry.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/diagnose_metrics.hpp"

#include <caf/exit_reason.hpp>
#include <caf/typed_response_promise.hpp>

#include <functional>
#include <string>
#include <vector>

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

namespace {

using profiler_pointer = messages::profiler_actor::stateful_pointer<profiler_state>;

// Profiles of one GPU: its worker reads their counters in one batch; `answer` gets a diagnosis per
// order, in order (not diagnosed, with the reason, when the worker cannot be reached).
void profile_all(profiler_pointer self, std::vector<messages::profile_order> orders,
                 std::function<void(std::vector<pipeline::diagnosis_summary>)> answer) {
  auto finish_all = [self, orders, answer](const std::vector<gpu::metric_set>& sets) {
    std::vector<pipeline::diagnosis_summary> summaries;
    for (std::size_t i = 0; i < orders.size(); ++i)
      summaries.push_back(self->state.finish(orders[i], sets[i]));
    answer(std::move(summaries));
  };
  auto nothing = [size = orders.size()](const std::string& why) {
    gpu::metric_set none;
    none.note = why;
    return std::vector<gpu::metric_set>(size, none);
  };
  if (orders.empty())
    return finish_all({});
  const int ordinal = orders.front().device.ordinal;
  auto worker = lookup<messages::gpu_worker_actor>(self->system(), gpu_worker_name(ordinal));
  if (!worker)
    return finish_all(nothing("no worker for GPU " + std::to_string(ordinal)));
  messages::metrics_batch_order metrics;
  for (const auto& order : orders)
    metrics.orders.push_back(messages::metrics_order{order.ref, order.launch, {}, order.tool});
  self->request(worker, caf::infinite, std::move(metrics))
    .then(
      [finish_all, nothing, size = orders.size()](messages::metrics_batch_reply& reply) {
        if (reply.sets.size() != size)
          return finish_all(nothing("the GPU worker answered " + std::to_string(reply.sets.size()) + " metric sets for " +
                                    std::to_string(size) + " profiles"));
        finish_all(reply.sets);
      },
      [self, finish_all, nothing](caf::error& e) {
        finish_all(nothing("the GPU worker did not answer: " + self->system().render(e)));
      });
}

} // namespace

messages::profiler_actor::behavior_type profiler(profiler_pointer self) {
  keep_exception_text(self);
  return {
    [self](messages::profile_order& order) -> caf::typed_response_promise<pipeline::diagnosis_summary> {
      auto promise = self->make_response_promise<pipeline::diagnosis_summary>();
      profile_all(self, {std::move(order)}, [promise](std::vector<pipeline::diagnosis_summary> summaries) mutable {
        promise.deliver(std::move(summaries.front()));
      });
      return promise;
    },
    // Several profiles of one GPU, read in one batch.
    [self](messages::profile_batch_order& batch) -> caf::typed_response_promise<messages::profile_batch_reply> {
      auto promise = self->make_response_promise<messages::profile_batch_reply>();
      profile_all(self, std::move(batch.orders), [promise](std::vector<pipeline::diagnosis_summary> summaries) mutable {
        promise.deliver(messages::profile_batch_reply{std::move(summaries)});
      });
      return promise;
    },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
