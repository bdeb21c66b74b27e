#include "deploy/observe/inject/launch_capture.hpp"

#include "deploy/observe/inject/buffer_watch.hpp"
#include "deploy/observe/inject/cupti_note.hpp"
#include "deploy/observe/inject/observer.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h> // with the launch calls' parameter structs (generated_*_meta.h)

#include <array>
#include <optional>
#include <cstring>
#include <string>
#include <vector>

namespace warpforge::observe::inject {
namespace {

/// Parameters are listed until cuFuncGetParamInfo fails; this bounds a misbehaving driver.
constexpr std::size_t max_params = 4096;

/// The runtime call a driver launch callback on this thread is nested in.
struct runtime_frame {
  std::uint32_t runtime_id = 0; // the outermost runtime launch call; 0 = none
  int depth = 0;                // runtime launch calls open on this thread (an entry point may
                                // call another: one launch)
  bool driver_seen = false;     // a nested driver launch callback came
};
thread_local runtime_frame current_runtime;

/// The watched kernel's launch call in progress on this thread (buffer_watch.hpp): begun at the
/// first entry that has its parameters (a runtime call, or a driver call not nested in one that
/// began it), ended at that same call's exit.
thread_local std::optional<watched_launch> current_watch;

/// Ends the watch at the exit of the call that began it; a failed call drops it.
void finish_watch_at_exit(std::uint32_t correlation_id, bool failed) {
  if (!current_watch || current_watch->correlation_id != correlation_id) return;
  if (!failed) end_watch(*current_watch);
  current_watch.reset();
}

std::string driver_error_name(CUresult result) {
  const char* name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) return "CUresult " + std::to_string(result);
  return name;
}

/// Where each parameter's bytes are: kernelParams[i], or one packed buffer from `extra`.
struct param_source {
  void** kernel_params = nullptr;
  const unsigned char* buffer = nullptr;
  std::size_t buffer_size = 0;
};

param_source source_of(void** kernel_params, void** extra) {
  param_source source{kernel_params};
  for (std::size_t i = 0; !kernel_params && extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      source.buffer = static_cast<const unsigned char*>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
      source.buffer_size = *static_cast<const std::size_t*>(extra[i + 1]);
  }
  return source;
}

/// Reads every parameter through `info(i, &offset, &size)` (cuFuncGetParamInfo or
/// cuKernelGetParamInfo). A failure at index 0 other than "no such parameter" becomes a note.
template <class ParamInfo>
std::vector<param_bytes> read_params(ParamInfo info, const param_source& source, const char* call) {
  std::vector<param_bytes> params;
  for (std::size_t i = 0; i < max_params; ++i) {
    std::size_t offset = 0;
    std::size_t size = 0;
    CUresult result = info(i, &offset, &size);
    if (result != CUDA_SUCCESS) {
      if (i == 0 && result != CUDA_ERROR_INVALID_VALUE)
        the_observer().notes.add(std::string(call) + ": " + driver_error_name(result) +
                                 ": scalar values unavailable");
      break;
    }
    const void* bytes = nullptr;
    if (source.kernel_params)
      bytes = source.kernel_params[i];
    else if (source.buffer && offset + size <= source.buffer_size)
      bytes = source.buffer + offset;
    if (!bytes) {
      the_observer().notes.add("a launch gave no bytes for its parameters: scalar values unavailable");
      return {};
    }
    params.push_back({static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(size),
                      to_hex(bytes, size)});
  }
  return params;
}

std::vector<param_bytes> function_params(CUfunction function, void** kernel_params, void** extra) {
  param_source source = source_of(kernel_params, extra);
  std::size_t offset = 0;
  std::size_t size = 0;
  // cuLaunchKernel also accepts a CUkernel in place of the CUfunction.
  CUresult probe = cuFuncGetParamInfo(function, 0, &offset, &size);
  if (probe == CUDA_ERROR_INVALID_HANDLE) {
    auto kernel = reinterpret_cast<CUkernel>(function);
    return read_params([&](std::size_t i, std::size_t* o, std::size_t* s) {
      return cuKernelGetParamInfo(kernel, i, o, s);
    }, source, "cuKernelGetParamInfo");
  }
  return read_params([&](std::size_t i, std::size_t* o, std::size_t* s) {
    return cuFuncGetParamInfo(function, i, o, s);
  }, source, "cuFuncGetParamInfo");
}

/// The function and parameter pointers of a driver launch call, whichever entry point it was.
struct driver_launch {
  CUfunction function = nullptr;
  void** kernel_params = nullptr;
  void** extra = nullptr;
};

std::optional<driver_launch> driver_launch_of(CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
      auto* p = static_cast<const cuLaunchKernel_params*>(params);
      return driver_launch{p->f, p->kernelParams, p->extra};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_ptsz_params*>(params);
      return driver_launch{p->f, p->kernelParams, p->extra};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      return driver_launch{p->f, p->kernelParams, p->extra};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_ptsz_params*>(params);
      return driver_launch{p->f, p->kernelParams, p->extra};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
      auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
      return driver_launch{p->f, p->kernelParams, nullptr};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      auto* p = static_cast<const cuLaunchCooperativeKernel_ptsz_params*>(params);
      return driver_launch{p->f, p->kernelParams, nullptr};
    }
    default: return std::nullopt;
  }
}

std::string function_name(CUfunction function, const char* symbol) {
  if (symbol && *symbol) return symbol;
  const char* name = nullptr;
  if (cuFuncGetName(&name, function) == CUDA_SUCCESS && name) return name;
  if (cuKernelGetName(&name, reinterpret_cast<CUkernel>(function)) == CUDA_SUCCESS && name) return name;
  return {};
}

void on_driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  if (call.callbackSite == CUPTI_API_EXIT) {
    bool failed = *static_cast<const CUresult*>(call.functionReturnValue) != CUDA_SUCCESS;
    if (failed) the_observer().launches.forget(call.correlationId);
    finish_watch_at_exit(call.correlationId, failed);
    return;
  }
  auto launch = driver_launch_of(cbid, call.functionParams);
  if (!launch) return;
  std::uint32_t runtime_id = current_runtime.runtime_id;
  if (runtime_id != 0) current_runtime.driver_seen = true;
  std::string symbol = function_name(launch->function, call.symbolName);
  auto params = function_params(launch->function, launch->kernel_params, launch->extra);
  if (!current_watch) current_watch = begin_watch(call.correlationId, symbol, params);
  the_observer().launches.add_driver(call.correlationId, runtime_id, std::move(symbol), std::move(params));
}

/// The parameters of CUDA 13's __cudaLaunchKernel(_ptsz) (crt/device_functions.h), which the
/// <<<>>> syntax calls. CUPTI passes a runtime call's arguments as a struct in signature order;
/// the toolkit's meta header has none for this internal entry point, so it is mirrored here.
struct runtime_kernel_launch_params {
  cudaKernel_t kernel;
  dim3 grid;
  dim3 block;
  void** args;
  std::size_t shared_mem;
  cudaStream_t stream;
};

/// Guards against a mirrored layout that does not match: the geometry must be a possible launch
/// before the args pointers are followed.
bool plausible(const runtime_kernel_launch_params& p) {
  auto threads = static_cast<std::uint64_t>(p.block.x) * p.block.y * p.block.z;
  return p.kernel && p.grid.x >= 1 && p.grid.y >= 1 && p.grid.z >= 1 && p.grid.y <= 65535 &&
         p.grid.z <= 65535 && threads >= 1 && threads <= 1024;
}

bool reads_runtime_kernel(CUpti_CallbackId cbid) {
  // Other runtime entry points pass a host stub, which needs the runtime to resolve.
  return cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
}

std::vector<param_bytes> runtime_kernel_params(const runtime_kernel_launch_params& p) {
  auto kernel = reinterpret_cast<CUkernel>(p.kernel);
  return read_params([&](std::size_t i, std::size_t* o, std::size_t* s) {
    return cuKernelGetParamInfo(kernel, i, o, s);
  }, param_source{p.args}, "cuKernelGetParamInfo");
}

/// At a __cudaLaunchKernel call's entry: the watch of its buffers, when it launches the watched
/// kernel (its parameters are read here, before the launch; a nested driver call then adds none).
void begin_runtime_watch(CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  if (!reads_runtime_kernel(cbid) || current_watch || the_observer().buffers_kernel.empty()) return;
  const auto& p = *static_cast<const runtime_kernel_launch_params*>(call.functionParams);
  if (!plausible(p)) return;
  std::string symbol = call.symbolName ? call.symbolName : "";
  if (symbol.empty()) symbol = function_name(reinterpret_cast<CUfunction>(p.kernel), nullptr);
  current_watch = begin_watch(call.correlationId, symbol, runtime_kernel_params(p));
}

/// A runtime launch that no driver callback carried out: read its parameters from the call.
void read_runtime_params(CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  if (!reads_runtime_kernel(cbid)) return;
  const auto& p = *static_cast<const runtime_kernel_launch_params*>(call.functionParams);
  if (!plausible(p)) {
    the_observer().notes.add("__cudaLaunchKernel: unexpected parameter layout: scalar values unavailable");
    return;
  }
  auto params = runtime_kernel_params(p);
  the_observer().launches.set_runtime_params(
      call.correlationId, std::move(params),
      {p.grid.x, p.grid.y, p.grid.z, p.block.x, p.block.y, p.block.z});
}

void on_runtime_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  launch_table& table = the_observer().launches;
  if (call.callbackSite == CUPTI_API_ENTER) {
    if (current_runtime.depth++ > 0)
      table.alias(call.correlationId, current_runtime.runtime_id);
    else {
      table.open_runtime(call.correlationId, call.symbolName ? call.symbolName : "");
      current_runtime.runtime_id = call.correlationId;
      current_runtime.driver_seen = false;
      begin_runtime_watch(cbid, call);
    }
    return;
  }
  bool failed = *static_cast<const cudaError_t*>(call.functionReturnValue) != cudaSuccess;
  if (failed)
    table.forget(call.correlationId);
  else if (!current_runtime.driver_seen)
    read_runtime_params(cbid, call);
  finish_watch_at_exit(call.correlationId, failed);
  if (--current_runtime.depth <= 0) current_runtime = {};
}

void CUPTIAPI on_callback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (the_observer().finished.load()) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    on_driver_launch(cbid, *static_cast<const CUpti_CallbackData*>(data));
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    on_runtime_launch(cbid, *static_cast<const CUpti_CallbackData*>(data));
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    // Kernels of a context being destroyed: deliver their finished records while it exists.
    cupti_ok(cuptiActivityFlushAll(0), "cuptiActivityFlushAll (context teardown)");
  }
}

constexpr CUpti_CallbackId driver_launch_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

constexpr CUpti_CallbackId runtime_launch_ids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};

} // namespace

bool subscribe_launch_callbacks() {
  CUpti_SubscriberHandle subscriber = nullptr;
  if (!cupti_ok(cuptiSubscribe(&subscriber, on_callback, nullptr), "cuptiSubscribe")) return false;
  for (CUpti_CallbackId id : driver_launch_ids)
    cupti_ok(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id),
             "cuptiEnableCallback (driver launch)");
  for (CUpti_CallbackId id : runtime_launch_ids)
    cupti_ok(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id),
             "cuptiEnableCallback (runtime launch)");
  cupti_ok(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
           "cuptiEnableCallback (context teardown)");
  return true;
}

} // namespace warpforge::observe::inject
