#include "gpu/runtime/device_session.hpp"

#include "gpu/runner/exit_codes.hpp"
#include "gpu/runtime/cuda_call.hpp"

namespace warpforge::gpu {

expected<device_session, std::string> open_device() {
  if (auto r = WARPFORGE_GPU_CALL(cudaSetDevice(0)); !r)
    return unexpected("no usable CUDA device: " + r.error().to_string());
  if (auto r = WARPFORGE_GPU_CALL(cudaFree(nullptr)); !r)
    return unexpected("no usable CUDA device: " + r.error().to_string());
  auto api = driver_api::get();
  if (!api)
    return unexpected("CUDA driver entry points: " + api.error().to_string());
  device_session device;
  device.api = *api;
  const std::pair<int*, cudaDeviceAttr> attributes[] = {
    {&device.limits.shared_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin},
    {&device.limits.l2_bytes, cudaDevAttrL2CacheSize},
    {&device.limits.sm_count, cudaDevAttrMultiProcessorCount},
    {&device.limits.major, cudaDevAttrComputeCapabilityMajor},
    {&device.limits.minor, cudaDevAttrComputeCapabilityMinor},
  };
  for (auto [value, attribute] : attributes)
    if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetAttribute(value, attribute, 0)); !r)
      return unexpected(r.error().to_string());
  return device;
}

launch_failure cuda_failure(const call_error& error, const std::string& what) {
  launch_failure f;
  f.detail = what + ": " + error.to_string();
  switch (error.code) {
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_IMAGE: f.outcome = vocabulary::branch_outcome::not_supported; break;
    default: break;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) {
    f.runner_exits = true;
    f.notes.push_back("the CUDA context is lost (sticky error); the runner exits with code " +
                      std::to_string(runner_exit_context_lost) + " after this reply");
  }
  (void)cudaGetLastError();
  return f;
}

device_memory& device_memory::operator=(device_memory&& o) noexcept {
  if (this != &o) {
    if (ptr)
      (void)cudaFree(ptr);
    ptr = std::exchange(o.ptr, nullptr);
    bytes = std::exchange(o.bytes, 0);
  }
  return *this;
}

device_memory::~device_memory() {
  if (ptr)
    (void)cudaFree(ptr); // after a sticky error this fails; the process ends anyway
}

call_result allocate(device_memory& out, std::size_t bytes) {
  out = device_memory{};
  if (auto r = WARPFORGE_GPU_CALL(cudaMalloc(&out.ptr, bytes)); !r) {
    (void)cudaGetLastError(); // an allocation failure is not sticky: clear it
    return r;
  }
  out.bytes = bytes;
  return {};
}

} // namespace warpforge::gpu
