#include "deploy/observe/inject/launch_table.hpp"

namespace warpforge::observe::inject {

void launch_table::open_runtime(std::uint32_t runtime_id, std::string symbol) {
  auto launch = std::make_shared<pending_launch>();
  launch->kernel = std::move(symbol);
  launch->through_runtime = true;
  launch->ids = {runtime_id};
  std::lock_guard lock(mutex_);
  launch->sequence = next_sequence_++;
  if (by_id_.emplace(runtime_id, std::move(launch)).second) ++waiting_;
}

void launch_table::alias(std::uint32_t inner_id, std::uint32_t outer_id) {
  std::lock_guard lock(mutex_);
  auto outer = by_id_.find(outer_id);
  if (outer == by_id_.end()) return;
  outer->second->ids.push_back(inner_id);
  by_id_[inner_id] = outer->second;
}

void launch_table::add_driver(std::uint32_t driver_id, std::uint32_t runtime_id,
                              std::string symbol, std::vector<param_bytes> params) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<pending_launch> launch;
  if (auto outer = by_id_.find(runtime_id); runtime_id != 0 && outer != by_id_.end()) {
    launch = outer->second; // the runtime launch this driver call carries out
  } else {
    launch = std::make_shared<pending_launch>();
    launch->sequence = next_sequence_++;
    ++waiting_;
  }
  if (!symbol.empty()) launch->kernel = std::move(symbol);
  launch->params = std::move(params);
  launch->source = params_source::driver;
  launch->ids.push_back(driver_id);
  by_id_[driver_id] = std::move(launch);
}

void launch_table::set_runtime_params(std::uint32_t runtime_id, std::vector<param_bytes> params,
                                      std::array<std::uint32_t, 6> geometry) {
  std::lock_guard lock(mutex_);
  auto found = by_id_.find(runtime_id);
  if (found == by_id_.end() || found->second->source == params_source::driver) return;
  found->second->params = std::move(params);
  found->second->source = params_source::runtime_kernel;
  found->second->runtime_geometry = geometry;
}

void launch_table::set_buffers(std::uint32_t id, std::vector<buffer_observation> buffers) {
  std::lock_guard lock(mutex_);
  if (auto found = by_id_.find(id); found != by_id_.end()) found->second->buffers = std::move(buffers);
}

void launch_table::forget(std::uint32_t id) {
  take(id);
}

std::optional<pending_launch> launch_table::take(std::uint32_t correlation_id) {
  std::lock_guard lock(mutex_);
  auto found = by_id_.find(correlation_id);
  if (found == by_id_.end()) return std::nullopt;
  std::shared_ptr<pending_launch> launch = found->second;
  for (std::uint32_t id : launch->ids) by_id_.erase(id);
  --waiting_;
  return std::move(*launch);
}

std::uint64_t launch_table::next_sequence() {
  std::lock_guard lock(mutex_);
  return next_sequence_++;
}

std::size_t launch_table::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_;
}

} // namespace warpforge::observe::inject
