#include "gpu/runtime/kernel_module.hpp"

#include "gpu/check/float16.hpp"
#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/entry_name.hpp"
#include "gpu/runtime/cuda_call.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>

namespace warpforge::gpu {

namespace {

launch_failure failure(vocabulary::branch_outcome outcome, std::string detail) {
  launch_failure f;
  f.outcome = outcome;
  f.detail = std::move(detail);
  return f;
}

} // namespace

std::array<std::byte, 8> scalar_bytes(const candidate_scalar_arg& s) {
  using config::dtype;
  std::uint64_t bits = 0;
  if (config::is_floating_point(s.type)) {
    double v = std::holds_alternative<double>(s.value)
                 ? std::get<double>(s.value)
                 : static_cast<double>(std::get<std::int64_t>(s.value));
    switch (s.type) {
      case dtype::f16: bits = double_to_f16(v); break;
      case dtype::bf16: bits = double_to_bf16(v); break;
      case dtype::f32: bits = std::bit_cast<std::uint32_t>(static_cast<float>(v)); break;
      default: bits = std::bit_cast<std::uint64_t>(v); break;
    }
  } else {
    std::int64_t v = std::holds_alternative<std::int64_t>(s.value)
                       ? std::get<std::int64_t>(s.value)
                       : static_cast<std::int64_t>(std::get<double>(s.value));
    bits = static_cast<std::uint64_t>(v); // the low size_of(type) bytes are the value
  }
  std::array<std::byte, 8> out{};
  std::memcpy(out.data(), &bits, sizeof bits);
  return out;
}

loaded_kernel::~loaded_kernel() {
  if (module)
    (void)api->module_unload(module);
}

expected<CUmodule, call_error> load_module_image(const driver_api& api, const std::string& image) {
  CUmodule module = nullptr;
  if (auto r = WARPFORGE_GPU_CALL(api.module_load_data(&module, image.data())); !r)
    return unexpected(r.error());
  return module;
}

std::optional<launch_failure> load_kernel(const device_session& device, const kernel_launch& k,
                                          const std::string& role, loaded_kernel& out) {
  const driver_api& api = *device.api;
  out.api = &api;
  out.launch = k;
  std::ifstream file{k.cubin_path, std::ios::binary};
  std::string image{std::istreambuf_iterator<char>{file}, {}};
  if (!file.good() && !file.eof())
    return failure(vocabulary::branch_outcome::runtime_error,
                   role + ": cannot read CUBIN " + k.cubin_path.string());
  if (image.empty())
    return failure(vocabulary::branch_outcome::runtime_error,
                   role + ": CUBIN " + k.cubin_path.string() + " is missing or empty");
  // The entry as the problem names it ("MatrixMulCUDA<32>") → its lowered symbol in this CUBIN
  // (an extern "C" name or a symbol is itself): the rule the compiler checked (entry_name.hpp).
  // An image that is no ELF CUBIN (a fatbin) is given the entry as its symbol, as before.
  const auto kernels = kernel_entries(std::span{reinterpret_cast<const std::uint8_t*>(image.data()), image.size()});
  const auto symbol = kernels ? entry_symbol(*kernels, k.entry) : expected<std::string, std::string>{k.entry};
  if (!symbol)
    return failure(vocabulary::branch_outcome::runtime_error, role + ": " + k.cubin_path.string() + ": " + symbol.error());
  if (auto r = WARPFORGE_GPU_CALL(api.module_load_data(&out.module, image.data())); !r)
    return cuda_failure(r.error(), role + ": loading " + k.cubin_path.string());
  if (auto r = WARPFORGE_GPU_CALL(api.module_get_function(&out.function, out.module, symbol->c_str()));
      !r)
    return cuda_failure(r.error(), role + ": entry '" + k.entry + "' (" + *symbol + ")");
  int static_smem = 0;
  int max_threads = 0;
  if (auto r = WARPFORGE_GPU_CALL(
        api.func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, out.function));
      !r)
    return cuda_failure(r.error(), role + ": static shared memory");
  if (auto r = WARPFORGE_GPU_CALL(api.func_get_attribute(
        &max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, out.function));
      !r)
    return cuda_failure(r.error(), role + ": max threads per block");
  const auto& g = k.launch;
  std::uint64_t threads = std::uint64_t{g.block[0]} * g.block[1] * g.block[2];
  if (threads > static_cast<std::uint64_t>(max_threads))
    return failure(vocabulary::branch_outcome::not_supported,
                   role + ": " + std::to_string(threads) + " threads per block, but '" + k.entry +
                     "' can run at most " + std::to_string(max_threads) +
                     " on this device (registers or launch bounds)");
  std::uint64_t smem = std::uint64_t{g.dynamic_smem_bytes} + static_cast<std::uint64_t>(static_smem);
  if (smem > static_cast<std::uint64_t>(device.limits.shared_optin_bytes))
    return failure(vocabulary::branch_outcome::not_supported,
                   role + ": needs " + std::to_string(smem) +
                     " bytes of shared memory per block (static " + std::to_string(static_smem) +
                     " + dynamic " + std::to_string(g.dynamic_smem_bytes) +
                     "), this device allows " + std::to_string(device.limits.shared_optin_bytes));
  if (g.dynamic_smem_bytes > default_dynamic_smem_limit_bytes) {
    if (auto r = WARPFORGE_GPU_CALL(api.func_set_attribute(
          out.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(g.dynamic_smem_bytes)));
        !r) {
      auto f = cuda_failure(r.error(), role + ": opting in to " +
                                         std::to_string(g.dynamic_smem_bytes) +
                                         " bytes of dynamic shared memory");
      if (f.outcome == vocabulary::branch_outcome::runtime_error && !f.runner_exits)
        f.outcome = vocabulary::branch_outcome::not_supported;
      return f;
    }
  }
  return std::nullopt;
}

kernel_params::kernel_params(const std::vector<candidate_arg>& args, const std::vector<void*>& buffers)
    : pointers_(args.size(), 0), scalars_(args.size()), params_(args.size(), nullptr) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (const auto* s = std::get_if<candidate_scalar_arg>(&args[i])) {
      scalars_[i] = scalar_bytes(*s);
      params_[i] = scalars_[i].data();
    } else {
      pointers_[i] = reinterpret_cast<CUdeviceptr>(buffers[i]);
      params_[i] = &pointers_[i];
    }
  }
}

call_result launch(const loaded_kernel& k, void** params, cudaStream_t stream) {
  const auto& g = k.launch.launch;
  return WARPFORGE_GPU_CALL(k.api->launch_kernel(k.function, g.grid[0], g.grid[1], g.grid[2],
                                                 g.block[0], g.block[1], g.block[2],
                                                 g.dynamic_smem_bytes, stream, params, nullptr));
}

} // namespace warpforge::gpu
