#pragma once
// Fills a host_report (gpu/device_report.hpp) from the CUDA runtime and CUPTI. Runs inside
// warpforge-runner only. Never fails: a host without a driver or device is a report with
// status no_driver/no_device and the failing call in `reason`.
//
// At depth full it creates the primary context on every visible device (to ask CUPTI about
// counters there; the runner keeps it for the work that follows); at depth properties it reads
// what the driver tells without a context, and leaves counter access unknown.

#include "gpu/device_report.hpp"
#include "gpu/runner/protocol.hpp"
#include "gpu/runtime/phase_clock.hpp"

#include <cuda_runtime_api.h>

namespace warpforge::gpu {

/// `clock` gets where the time went: the driver's opening (cudaGetDeviceCount) and each device
/// (its properties, context and counter probe); the runner logs it.
host_report query_host(device_query_depth depth, phase_clock& clock);

/// What a failed cudaGetDeviceCount means for the host.
gpu_status classify_device_count_error(cudaError_t error);

} // namespace warpforge::gpu
