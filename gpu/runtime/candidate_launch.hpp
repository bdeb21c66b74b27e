#pragma once
// The steps that run_candidate (execute.hpp), profile_candidate (range_profiler.hpp) and
// `warpforge-runner --execute` share inside the runner, so a candidate's inputs are made one way:
//
//   auto device = open_device();                        // device 0, primary context, limits
//   prepared_candidate c;
//   if (auto failure = prepare_candidate(*device, request, request.seeds.front(), c))
//     return *failure;                                  // runtime_error / not_supported outcome
//   launch_and_wait(c.kernel, c.args.params.data(), stream);
//
// Failures while loading or running are candidate_result outcomes (runtime_error, not_supported,
// runner_exits after a sticky error), so every caller turns them into its own reply. Runner-only
// (warpforge_gpu_runtime).

#include "expected/expected.hpp"
#include "gpu/runner/candidate_request.hpp"
#include "gpu/runtime/driver_api.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// What the launch checks need to know about device 0.
struct device_limits {
  int shared_optin_bytes = 0; // bytes of shared memory a block may opt in to
  int l2_bytes = 0;           // bytes of L2
};

/// Device 0 made current, with its primary context, the driver entry points and its limits.
struct device_session {
  const driver_api* api = nullptr;
  device_limits limits;
};

/// cudaSetDevice(0), the primary context, the driver entry points, the limits. The error is
/// "cannot execute here at all" (no driver, no device, missing entry points), naming the call.
expected<device_session, std::string> open_device();

/// The request checks every kind does before touching the device: at least one seed, no empty
/// buffer. `kind` prefixes the error ("run_candidate: no seeds").
expected<void, std::string> check_request_shape(const candidate_request& request,
                                                const std::string& kind);

candidate_result make_result(vocabulary::branch_outcome outcome, std::string detail);

/// A CUDA failure while loading or running: runtime_error, or not_supported for what this device
/// cannot give; runner_exits when a device synchronize fails afterwards (sticky error).
candidate_result cuda_failure(const call_error& error, const std::string& what);

struct device_memory {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  device_memory(device_memory&& o) noexcept : ptr(std::exchange(o.ptr, nullptr)), bytes(o.bytes) {}
  ~device_memory();
};

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
/// to large dynamic shared memory). `role` ("candidate", "reference") starts every detail.
std::optional<candidate_result> load_kernel(const device_session& device, const kernel_launch& k,
                                            const std::string& role, loaded_kernel& out);

/// One set of device arguments (the candidate's or the reference's).
struct device_args {
  std::vector<device_memory> buffers;            // per arg; empty for scalars
  std::vector<CUdeviceptr> pointers;             // per arg
  std::vector<std::array<std::byte, 8>> scalars; // per arg, little endian in an 8-byte slot
  std::vector<void*> params;                     // per arg: what cuLaunchKernel reads
};

/// Host copies of the buffers, one per arg (empty for scalars).
using host_buffers = std::vector<std::vector<std::byte>>;

std::optional<candidate_result> allocate(const std::vector<candidate_arg>& args, device_args& out);

/// Inputs (and inouts) filled from `seed` (gpu/check/input_fill.hpp, arg index = position in
/// `args`), outputs poisoned. A failure names the seed and the argument.
std::optional<candidate_result> fill_host_args(const std::vector<candidate_arg>& args,
                                               std::uint64_t seed, host_buffers& out);

std::optional<candidate_result> upload(const host_buffers& host, device_args& device);
std::optional<candidate_result> download(const device_args& device, host_buffers& host);

call_result launch(const loaded_kernel& k, void** params, cudaStream_t stream);
/// Launch, then wait: errors of the launch and of the run both surface here.
call_result launch_and_wait(const loaded_kernel& k, void** params, cudaStream_t stream);

/// A candidate ready to launch: loaded, its arguments allocated and uploaded from one seed.
struct prepared_candidate {
  loaded_kernel kernel;
  device_args args;
  host_buffers initial; // what was uploaded: seed inputs, poisoned outputs (for re-uploads)
};

/// load_kernel + allocate + fill_host_args(seed) + upload for `request.candidate`.
std::optional<candidate_result> prepare_candidate(const device_session& device,
                                                  const candidate_request& request,
                                                  std::uint64_t seed, prepared_candidate& out);

} // namespace warpforge::gpu
