#include "gpu/runtime/driver_api.hpp"

#include "gpu/runtime/cuda_call.hpp"

#include <mutex>
#include <string>

namespace warpforge::gpu {

namespace {

expected<driver_api, call_error> load() {
  driver_api api;
  auto fetch = [](const char* name, auto& fn) -> call_result {
    void* address = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    auto r = WARPFORGE_GPU_CALL(cudaGetDriverEntryPointByVersion(
      name, &address, driver_entry_point_version, cudaEnableDefault, &found));
    if (!r)
      return r;
    if (found != cudaDriverEntryPointSuccess || address == nullptr)
      return unexpected(make_call_error(gpu_api::driver, static_cast<long long>(found),
                                        "cudaDriverEntryPointSymbolNotFound",
                                        std::string{"driver has no entry point "} + name,
                                        "cudaGetDriverEntryPointByVersion", __FILE__, __LINE__));
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(address);
    return {};
  };
  for (auto r : {fetch("cuModuleLoadData", api.module_load_data),
                 fetch("cuModuleUnload", api.module_unload),
                 fetch("cuModuleGetFunction", api.module_get_function),
                 fetch("cuFuncSetAttribute", api.func_set_attribute),
                 fetch("cuFuncGetAttribute", api.func_get_attribute),
                 fetch("cuLaunchKernel", api.launch_kernel),
                 fetch("cuCtxGetCurrent", api.ctx_get_current),
                 fetch("cuOccupancyMaxActiveBlocksPerMultiprocessor", api.occupancy_max_active_blocks),
                 fetch("cuGetErrorName", api.get_error_name),
                 fetch("cuGetErrorString", api.get_error_string)})
    if (!r)
      return unexpected(r.error());
  return api;
}

std::once_flag loaded_once;
expected<driver_api, call_error> loaded = unexpected(call_error{});

} // namespace

expected<const driver_api*, call_error> driver_api::get() {
  std::call_once(loaded_once, [] { loaded = load(); });
  if (!loaded)
    return unexpected(loaded.error());
  return &*loaded;
}

call_result check_call(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS)
    return {};
  const char* name = nullptr;
  const char* text = nullptr;
  if (auto api = driver_api::get()) {
    if ((*api)->get_error_name(result, &name) != CUDA_SUCCESS)
      name = nullptr;
    if ((*api)->get_error_string(result, &text) != CUDA_SUCCESS)
      text = nullptr;
  }
  return unexpected(make_call_error(gpu_api::driver, static_cast<long long>(result),
                                    name ? name : "CUDA_ERROR_?", text ? text : "", call, file,
                                    line));
}

} // namespace warpforge::gpu
