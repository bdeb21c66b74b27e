#pragma once
// Device 0 inside the runner: the primary context, the driver entry points, the limits, device
// memory, and what a failed CUDA call means for the kernel that made it. Shared by every request
// kind (run_race, profile_candidate, --execute). Runner-only (warpforge_gpu_runtime).
//
//   auto device = open_device();                    // cudaSetDevice(0), primary context, limits
//   device_memory buffer;
//   if (auto r = allocate(buffer, bytes); !r) return cuda_failure(r.error(), "allocating 'out'");

#include "foundation/expected/expected.hpp"
#include "gpu/call_check.hpp"
#include "gpu/runtime/driver_api.hpp"
#include "gpu/runtime/launch_limits.hpp"
#include "foundation/vocabulary/branch.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// Device 0 made current, with its primary context, the driver entry points and its limits.
struct device_session {
  const driver_api* api = nullptr;
  device_limits limits;
};

/// cudaSetDevice(0), the primary context, the driver entry points, the limits. The error is
/// "cannot execute here at all" (no driver, no device, missing entry points), naming the call.
expected<device_session, std::string> open_device();

/// What a failed load or launch means for the kernel it concerns.
struct launch_failure {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::runtime_error; // or not_supported
  std::string detail;        // the call and the CUDA error, prefixed with what was being done
  bool runner_exits = false; // a sticky error: the context is lost, the runner must end
  std::vector<std::string> notes;
};

/// A CUDA failure while loading or running: runtime_error, or not_supported for what this device
/// cannot give; runner_exits when a device synchronize fails afterwards (sticky error).
launch_failure cuda_failure(const call_error& error, const std::string& what);

/// One cudaMalloc'ed buffer, freed on destruction.
struct device_memory {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  device_memory(device_memory&& o) noexcept
      : ptr(std::exchange(o.ptr, nullptr)), bytes(std::exchange(o.bytes, 0)) {}
  device_memory& operator=(device_memory&& o) noexcept;
  ~device_memory();
};

/// cudaMalloc of `bytes` into `out` (freeing what it held).
call_result allocate(device_memory& out, std::size_t bytes);

} // namespace warpforge::gpu
