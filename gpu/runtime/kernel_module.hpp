#pragma once
// A kernel CUBIN loaded on device 0, and its launches: load and check that the launch fits the
// device (threads, shared memory; opting in to large dynamic shared memory), build the parameter
// array from the request's arguments, launch on a stream. Runner-only (warpforge_gpu_runtime).
//
//   loaded_kernel k;
//   if (auto failure = load_kernel(device, request.kernels[0], "kernel 0", k)) return *failure;
//   kernel_params params{request.args, buffer_pointers};
//   launch(k, params.data(), stream);

#include "gpu/runner/race_request.hpp"
#include "gpu/runtime/device_session.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// One CUBIN's module and entry, unloaded on destruction.
struct loaded_kernel {
  const driver_api* api = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  kernel_launch launch;
  loaded_kernel() = default;
  loaded_kernel(const loaded_kernel&) = delete;
  loaded_kernel& operator=(const loaded_kernel&) = delete;
  ~loaded_kernel();
};

/// Loads `k`'s CUBIN and checks that its launch fits the device (threads, shared memory; opts in
/// to dynamic shared memory above default_dynamic_smem_limit_bytes). `role` names the kernel in
/// failures ("kernel 2 'transpose'", "the reference"). not_supported when the device cannot run
/// it as asked, runtime_error otherwise.
std::optional<launch_failure> load_kernel(const device_session& device, const kernel_launch& k,
                                          const std::string& role, loaded_kernel& out);

/// A CUBIN already read into memory (the check kernels): module and one function per entry.
expected<CUmodule, call_error> load_module_image(const driver_api& api, const std::string& image);

/// The kernel parameter array for `args`: buffer i points at buffers[i] (a device address; 0 for
/// scalars), scalar i holds its value's bytes. The array points into this object: keep it alive
/// while launches that use it are queued.
class kernel_params {
public:
  kernel_params(const std::vector<candidate_arg>& args, const std::vector<void*>& buffers);
  kernel_params(const kernel_params&) = delete;
  kernel_params& operator=(const kernel_params&) = delete;
  void** data() { return params_.data(); }

private:
  std::vector<CUdeviceptr> pointers_;
  std::vector<std::array<std::byte, 8>> scalars_;
  std::vector<void*> params_;
};

/// Launches `k` with `params` on `stream` (no wait).
call_result launch(const loaded_kernel& k, void** params, cudaStream_t stream);

/// A scalar argument's bytes, little endian, in an 8-byte slot (floats converted to the dtype).
std::array<std::byte, 8> scalar_bytes(const candidate_scalar_arg& s);

} // namespace warpforge::gpu
