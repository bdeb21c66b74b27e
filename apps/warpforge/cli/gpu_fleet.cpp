#include "apps/warpforge/cli/gpu_fleet.hpp"

#include "gpu/runner/runner_client.hpp"

#include <cstdlib>
#include <iostream>
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
      return unexpected{"'" + item + "' is not a GPU of this host (it has " +
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
  // Each chosen GPU's own runner opens it; the probe only reads what the driver says.
  auto report = client->device_query(gpu::device_query_depth::properties);
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

} // namespace warpforge::cli

namespace warpforge::cli {

void say_no_gpu(std::string_view verb, std::string_view why_none, std::string_view done) {
  std::cerr << "warpforge " << verb << ": GPU time not measured (no GPU here: " << gpu::short_no_gpu_reason(why_none)
            << "); measurements need a GPU" << (done.empty() ? "" : "; ") << done << '\n'
            << "  " << no_gpu_next_step << '\n';
}

} // namespace warpforge::cli
