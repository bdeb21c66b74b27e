#include "gpu/runtime/single_launch.hpp"

#include "gpu/runtime/cuda_call.hpp"

namespace warpforge::gpu {

std::optional<launch_failure> single_launch::refresh() {
  return workspace->refresh(request->args, inputs, buffers);
}

std::optional<launch_failure> prepare_single_launch(device_workspace& workspace,
                                                    const race_request& request, single_launch& out) {
  out.workspace = &workspace;
  out.request = &request;
  const auto& k = request.kernels.front();
  if (auto f = load_kernel(workspace.device(), k, "kernel 0 '" + k.entry + "'", out.kernel))
    return f;
  double generated_s = 0.0;
  auto inputs = workspace.pristine(request.args, request.seeds.front(), generated_s);
  if (!inputs)
    return inputs.error();
  out.inputs = std::move(*inputs);
  auto buffers = workspace.working_buffers(request.args);
  if (!buffers)
    return buffers.error();
  out.buffers = std::move(*buffers);
  out.params = std::make_unique<kernel_params>(request.args, out.buffers);
  return out.refresh();
}

call_result launch_and_wait(single_launch& one) {
  if (auto r = launch(one.kernel, one.params->data(), one.workspace->stream()); !r)
    return r;
  return WARPFORGE_GPU_CALL(cudaStreamSynchronize(one.workspace->stream()));
}

} // namespace warpforge::gpu
