#pragma once
// The CUPTI API callback: at each kernel launch call (driver and runtime domains) it records the
// launch's kernel symbol and the bytes of its parameters into the observer's launch table, keyed
// by the call's correlation id. Geometry and duration come later, from the activity record.
//
// Parameters: cuFuncGetParamInfo(f, i) for i = 0.. until it fails gives each parameter's offset
// and size; the bytes are copied from kernelParams[i] (or from the CU_LAUNCH_PARAM_BUFFER_POINTER
// buffer of `extra`). A runtime launch with no nested driver callback falls back to the CUDA 13
// entry point __cudaLaunchKernel's CUkernel and args (cuKernelGetParamInfo).

#include <cupti.h>

namespace warpforge::observe::inject {

/// Subscribes the launch callback and enables the launch call ids of both domains (and context
/// teardown, to flush activity). Failures become notes; returns whether the subscription exists.
bool subscribe_launch_callbacks();

} // namespace warpforge::observe::inject
