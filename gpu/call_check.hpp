#pragma once
// The one way warpforge calls CUDA, NVRTC and CUPTI:
//
//   if (auto r = WARPFORGE_GPU_CALL(nvrtcVersion(&major, &minor)); !r)
//     return unexpected(r.error());            // r.error().to_string() names call, file:line, code
//
// WARPFORGE_GPU_CALL evaluates the call and hands its result code to an overload of check_call,
// which records the API, the numeric code, its name and message, the call's source text and
// file:line. This header declares the NVRTC overload (the coordinator compiles with NVRTC); the
// cudart and CUPTI overloads live in gpu/runtime/cuda_call.hpp, inside warpforge_gpu_runtime,
// which only warpforge-runner links: code that includes only this header cannot touch a device.

#include "foundation/expected/expected.hpp"

#include <array>
#include <nvrtc.h>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::gpu {

/// Which library a checked call went to.
enum class gpu_api { cudart, driver, nvrtc, cupti };

inline constexpr std::array all_gpu_apis{gpu_api::cudart, gpu_api::driver, gpu_api::nvrtc,
                                         gpu_api::cupti};

std::string_view to_string(gpu_api api);
std::optional<gpu_api> gpu_api_from_string(std::string_view text);

/// A failed CUDA/NVRTC/CUPTI call: what was called, where, and what the library said.
struct call_error {
  gpu_api api = gpu_api::cudart;
  long long code = 0;     // the library's numeric result code
  std::string code_name;  // e.g. "cudaErrorInsufficientDriver"
  std::string message;    // the library's description of the code
  std::string call;       // source text of the call, e.g. "cudaGetDeviceCount(&count)"
  std::string file;       // source file, relative to the repository root
  int line = 0;           // source line

  /// "cudaGetDeviceCount(&count) failed: cudaErrorInsufficientDriver (35): <message>
  ///  [gpu/runtime/device_query.cpp:40]"
  std::string to_string() const;
};

using call_result = expected<void, call_error>;

/// Builds the error for a failed call; check_call overloads use it.
call_error make_call_error(gpu_api api, long long code, std::string code_name, std::string message,
                           const char* call, const char* file, int line);

call_result check_call(nvrtcResult result, const char* call, const char* file, int line);

} // namespace warpforge::gpu

/// Evaluates a CUDA/NVRTC/CUPTI call once; yields warpforge::gpu::call_result.
#define WARPFORGE_GPU_CALL(expr) ::warpforge::gpu::check_call((expr), #expr, __FILE__, __LINE__)
