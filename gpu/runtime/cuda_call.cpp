#include "gpu/runtime/cuda_call.hpp"

namespace warpforge::gpu {

call_result check_call(cudaError_t result, const char* call, const char* file, int line) {
  if (result == cudaSuccess)
    return {};
  // Reading the error clears it, unless it is sticky (then the context is lost anyway).
  (void)cudaGetLastError();
  const char* name = cudaGetErrorName(result);
  const char* text = cudaGetErrorString(result);
  return unexpected(make_call_error(gpu_api::cudart, static_cast<long long>(result),
                                    name ? name : "cudaError?", text ? text : "", call, file,
                                    line));
}

call_result check_call(CUptiResult result, const char* call, const char* file, int line) {
  if (result == CUPTI_SUCCESS)
    return {};
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuptiGetResultString(result, &name) != CUPTI_SUCCESS)
    name = nullptr;
  if (cuptiGetErrorMessage(result, &text) != CUPTI_SUCCESS)
    text = nullptr;
  return unexpected(make_call_error(gpu_api::cupti, static_cast<long long>(result),
                                    name ? name : "CUPTI_ERROR_?", text ? text : "", call, file,
                                    line));
}

} // namespace warpforge::gpu
