// The campaign engine's GPUs that come and go with their hosts (docs/hosts.md): a GPU that joins
// a running campaign, new or back after its host was lost. Losing one is gpu_out_of_service
// (engine_dispatch.cpp): its race goes back to the queue.

#include "pipeline/campaign_engine.hpp"

#include "diagnosis/gpu_specs.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/engine_slots.hpp"

namespace warpforge::pipeline {

void campaign_engine::gpu_joined(const gpu::device_info& device) {
  if (interrupted_ || finished())
    return;
  update_usage();
  auto say = [&](feed::event_type type, const std::string& message) {
    out_.events.push_back(job_event(type, "", feed::no_iter, feed::no_branch, device.ordinal,
                                    feed::detail{}.add("message", message).add("component", "scheduler").json()));
  };
  // Every kernel is compiled once, for the campaign's architecture: a GPU of another cannot run them.
  if (!gpus_.empty() && device.arch() != arch()) {
    say(feed::event_type::warning, "GPU " + std::to_string(device.ordinal) + " (" + device.name + ", " + device.arch() +
                                     ") not taken: the campaign compiles for " + arch());
    return;
  }
  for (auto& g : gpus_) {
    if (g.device.ordinal != device.ordinal)
      continue;
    if (!g.out_of_service.empty()) {
      say(feed::event_type::warning, "GPU " + std::to_string(device.ordinal) + " is back in service (it was out: " +
                                       g.out_of_service + ")");
      g.out_of_service.clear();
      g.since = now();
    }
    return pump();
  }
  gpu_slot g;
  g.device = device;
  g.model = gpu_model(device);
  g.peak_bandwidth =
    diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), properties_of(device)).peak_dram_bandwidth();
  g.since = now();
  gpus_.push_back(std::move(g));
  say(feed::event_type::warning, "GPU " + std::to_string(device.ordinal) + " (" + device.name + ") joined the campaign");
  pump();
}

} // namespace warpforge::pipeline
