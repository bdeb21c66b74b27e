#pragma once
// The CUDA driver API functions the runner uses, fetched from cudart with
// cudaGetDriverEntryPointByVersion: warpforge never links libcuda, so binaries start on hosts
// without a driver (docs TOOLCHAIN §4). Runner-only (warpforge_gpu_runtime).
//
//   auto api = driver_api::get();               // after cudaFree(0): the primary context exists
//   if (!api) return unexpected(api.error());
//   WARPFORGE_GPU_CALL((*api)->module_load_data(&module, image));

#include "gpu/call_check.hpp"

#include <cuda.h>

namespace warpforge::gpu {

/// The CUDA version whose driver ABI the entry points are requested for (13.0).
inline constexpr unsigned driver_entry_point_version = 13000;

struct driver_api {
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr; // the context CUPTI profiles
  decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy_max_active_blocks =
    nullptr; // cross-checks the launch attributes (launch_attributes.hpp)
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;

  /// The table, loaded once (thread-safe); an error names the entry point that was missing.
  static expected<const driver_api*, call_error> get();
};

/// The driver overload of check_call, for WARPFORGE_GPU_CALL.
call_result check_call(CUresult result, const char* call, const char* file, int line);

} // namespace warpforge::gpu
