#include "gpu/runtime/single_launch.hpp"

#include "gpu/runtime/cuda_call.hpp"

namespace warpforge::gpu {

std::optional<launch_failure> single_launch::refresh() {
  return workspace->refresh(request->args, inputs, buffers);
}

std::optional<launch_failure> prepare_single_launch(device_workspace& workspace, const race_request& request,
                                                    single_launch& out, buffer_home home) {
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
  if (home == buffer_home::workspace) {
    auto buffers = workspace.working_buffers(request.args);
    if (!buffers)
      return buffers.error();
    out.buffers = std::move(*buffers);
  } else {
    out.own.resize(request.args.size());
    out.buffers.assign(request.args.size(), nullptr);
    for (std::size_t i = 0; i < request.args.size(); ++i)
      if (const auto* b = std::get_if<candidate_buffer_arg>(&request.args[i])) {
        if (auto f = workspace.allocate_evicting(out.own[i], buffer_bytes(*b), "'" + b->name + "'"))
          return f;
        out.buffers[i] = out.own[i].ptr;
      }
  }
  out.params = std::make_unique<kernel_params>(request.args, out.buffers);
  return out.refresh();
}

std::size_t own_launch_bytes(const race_request& request) {
  std::size_t bytes = 0;
  for (const auto& arg : request.args)
    if (const auto* b = std::get_if<candidate_buffer_arg>(&arg))
      bytes += buffer_bytes(*b) * (b->role == config::arg_role::output ? 1 : 2);
  return bytes;
}

call_result launch_and_wait(single_launch& one) {
  if (auto r = launch(one.kernel, one.params->data(), one.workspace->stream()); !r)
    return r;
  return WARPFORGE_GPU_CALL(cudaStreamSynchronize(one.workspace->stream()));
}

} // namespace warpforge::gpu
