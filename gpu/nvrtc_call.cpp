// The NVRTC overload of check_call, in its own object file so that programs that never compile
// (warpforge-runner) do not pull in libnvrtc through call_check.o.
#include "gpu/call_check.hpp"

namespace warpforge::gpu {

call_result check_call(nvrtcResult result, const char* call, const char* file, int line) {
  if (result == NVRTC_SUCCESS)
    return {};
  const char* text = nvrtcGetErrorString(result);
  return unexpected(make_call_error(gpu_api::nvrtc, static_cast<long long>(result),
                                    text ? text : "NVRTC_ERROR_?", "", call, file, line));
}

} // namespace warpforge::gpu
