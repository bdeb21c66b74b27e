#pragma once
// Fills a host_report (gpu/device_report.hpp) from the CUDA runtime and CUPTI. Runs inside
// warpforge-runner only. Never fails: a host without a driver or device is a report with
// status no_driver/no_device and the failing call in `reason`.
//
// It creates the primary context on every visible device (to ask CUPTI about counters there);
// the runner keeps it for the work that follows.

#include "gpu/device_report.hpp"

#include <cuda_runtime_api.h>

namespace warpforge::gpu {

host_report query_host();

/// What a failed cudaGetDeviceCount means for the host.
gpu_status classify_device_count_error(cudaError_t error);

} // namespace warpforge::gpu
