#include "cli/gpu_fleet.hpp"

#include "actors/registry.hpp"
#include "gpu/runner/runner_client.hpp"

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <cstdlib>
#include <sstream>

namespace warpforge::cli {

const gpu::device_info& gpu_fleet::device(int ordinal) const {
  return host->devices.at(static_cast<std::size_t>(ordinal));
}

expected<std::vector<int>, std::string> choose_gpus(const std::string& text, int device_count) {
  std::vector<int> chosen;
  if (text == "all") {
    for (int i = 0; i < device_count; ++i)
      chosen.push_back(i);
    return chosen;
  }
  std::istringstream items{text};
  for (std::string item; std::getline(items, item, ',');) {
    char* end = nullptr;
    const long ordinal = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || ordinal < 0 || ordinal >= device_count)
      return unexpected{"--gpus: '" + item + "' is not a GPU of this host (it has " +
                        std::to_string(device_count) + ")"};
    chosen.push_back(static_cast<int>(ordinal));
  }
  return chosen;
}

expected<gpu_fleet, std::string> discover_gpus(const std::string& gpus_option) {
  gpu_fleet fleet;
  auto runner_path = gpu::locate_runner();
  if (!runner_path) {
    fleet.why_none = runner_path.error().to_string();
    return fleet;
  }
  fleet.runner = *runner_path;
  gpu::runner_options probe;
  probe.executable = fleet.runner;
  auto client = gpu::runner_client::start(probe);
  if (!client) {
    fleet.why_none = "the runner did not start: " + client.error().to_string();
    return fleet;
  }
  auto report = client->device_query();
  client->stop();
  if (!report) {
    fleet.why_none = "the runner did not answer the device query: " + report.error().to_string();
    return fleet;
  }
  fleet.host = std::move(*report);
  if (fleet.host->status != gpu::gpu_status::ok || fleet.host->devices.empty()) {
    fleet.why_none = fleet.host->reason.empty() ? "no GPU visible" : fleet.host->reason;
    return fleet;
  }
  auto chosen = choose_gpus(gpus_option, static_cast<int>(fleet.host->devices.size()));
  if (!chosen)
    return unexpected{chosen.error()};
  fleet.chosen = std::move(*chosen);
  return fleet;
}

diagnosis::device_properties properties_of(const gpu::device_info& device) {
  diagnosis::device_properties p;
  p.name = device.name;
  p.sm_count = device.sm_count;
  p.sm_clock_khz = device.sm_clock_khz;
  p.memory_clock_khz = device.memory_clock_khz;
  p.memory_bus_width_bits = device.memory_bus_width_bits;
  p.l2_bytes = device.l2_bytes;
  return p;
}

messages::device_summary summary_of(const gpu::device_info& device) {
  return {device.ordinal, device.name,  device.arch(), device.memory_bytes,
          static_cast<std::uint32_t>(device.sm_count), device.l2_bytes};
}

std::vector<worker_handle> spawn_workers(caf::actor_system& system, const gpu_fleet& fleet,
                                         const fleet_options& options) {
  std::vector<worker_handle> workers;
  for (int ordinal : fleet.chosen) {
    const auto& device = fleet.device(ordinal);
    actors::gpu_worker_config config;
    config.device = summary_of(device);
    config.uuid = device.uuid;
    config.keeper.runner.executable = fleet.runner;
    config.keeper.restarts = options.restarts;
    config.lock_holder = options.holder;
    config.lock_timeout = options.lock_timeout;
    config.default_watchdog = options.default_watchdog;
    auto handle = system.spawn<caf::detached>(actors::gpu_worker, config);
    system.registry().put(actors::registry_key(actors::gpu_worker_name(ordinal)),
                          caf::actor_cast<caf::strong_actor_ptr>(handle));
    workers.push_back({ordinal, handle});
  }
  return workers;
}

void stop_workers(caf::actor_system& system, std::vector<worker_handle>& workers) {
  caf::scoped_actor self{system};
  for (auto& w : workers) {
    system.registry().erase(actors::registry_key(actors::gpu_worker_name(w.ordinal)));
    self->send(w.handle, messages::stop_atom::value);
    self->wait_for(w.handle);
  }
  workers.clear();
}

} // namespace warpforge::cli
