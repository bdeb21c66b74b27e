#pragma once
// Launches seen by the API callbacks (launch_capture), waiting for CUPTI's kernel activity record
// (activity_join) which brings the duration. Keyed by CUPTI correlation id.
//
// A runtime launch (<<<>>>, cudaLaunchKernel) may reach the driver through a nested driver launch
// callback, or (we cannot be sure for every CUDA version) not at all. So one pending launch can
// be known under two ids: the runtime call's and the nested driver call's. The kernel activity
// record carries one of them; either finds the launch, and taking it removes both.

#include "deploy/observe/launches/launch_record.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpforge::observe::inject {

/// How the parameters of a pending launch were read.
enum class params_source : std::uint8_t {
  none,           // not (yet) read: a runtime launch with no nested driver callback
  driver,         // from the driver launch's kernelParams / extra buffer
  runtime_kernel, // from the runtime call's CUkernel and args (no driver callback came)
};

struct pending_launch {
  std::uint64_t sequence = 0;       // launch order, over all kernels
  std::string kernel;               // symbol from the callback ("" = take the activity's name)
  std::vector<param_bytes> params;
  params_source source = params_source::none;
  bool through_runtime = false;     // a runtime launch callback saw it
  // Geometry as the runtime call passed it, when params came from the runtime call: checked
  // against the activity record before those params are trusted.
  std::optional<std::array<std::uint32_t, 6>> runtime_geometry;
  std::vector<std::uint32_t> ids;   // the correlation ids it is known under
  std::vector<buffer_observation> buffers; // the watched kernel's pointer parameters (buffer_watch)
};

class launch_table {
public:
  /// A runtime launch call began.
  void open_runtime(std::uint32_t runtime_id, std::string symbol);
  /// A runtime launch call began inside another (`outer_id`): the same launch, one more id.
  void alias(std::uint32_t inner_id, std::uint32_t outer_id);
  /// A driver launch call began; `runtime_id` is the runtime call it is nested in (0 = none).
  void add_driver(std::uint32_t driver_id, std::uint32_t runtime_id, std::string symbol,
                  std::vector<param_bytes> params);
  /// Parameters read from the runtime call itself (no driver callback came).
  void set_runtime_params(std::uint32_t runtime_id, std::vector<param_bytes> params,
                          std::array<std::uint32_t, 6> geometry);
  /// The watched kernel's buffers (buffer_watch.hpp), once its launch call returned.
  void set_buffers(std::uint32_t id, std::vector<buffer_observation> buffers);
  /// The launch call failed: no kernel will run.
  void forget(std::uint32_t id);
  /// The launch a kernel activity record belongs to, removed from the table.
  std::optional<pending_launch> take(std::uint32_t correlation_id);
  /// A sequence number for a kernel no launch callback saw (e.g. a graph's kernels).
  std::uint64_t next_sequence();
  /// Launches still waiting (at exit: those that never got an activity record).
  std::size_t waiting() const;

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint32_t, std::shared_ptr<pending_launch>> by_id_;
  std::uint64_t next_sequence_ = 0;
  std::size_t waiting_ = 0;
};

} // namespace warpforge::observe::inject
