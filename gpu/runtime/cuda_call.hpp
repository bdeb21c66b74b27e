#pragma once
// The cudart and CUPTI overloads of check_call, for WARPFORGE_GPU_CALL (gpu/call_check.hpp).
// Part of warpforge_gpu_runtime: only code that runs inside warpforge-runner includes this.

#include "gpu/call_check.hpp"

#include <cuda_runtime_api.h>
#include <cupti_result.h>

namespace warpforge::gpu {

call_result check_call(cudaError_t result, const char* call, const char* file, int line);
call_result check_call(CUptiResult result, const char* call, const char* file, int line);

} // namespace warpforge::gpu
