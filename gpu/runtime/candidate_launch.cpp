#include "gpu/runtime/candidate_launch.hpp"

#include "gpu/check/float16.hpp"
#include "gpu/check/input_fill.hpp"
#include "gpu/check/poison.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/execute.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

namespace warpforge::gpu {

namespace {

// A scalar argument's bytes, little endian, in an 8-byte slot.
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

} // namespace

expected<device_session, std::string> open_device() {
  if (auto r = WARPFORGE_GPU_CALL(cudaSetDevice(0)); !r)
    return unexpected("no usable CUDA device: " + r.error().to_string());
  if (auto r = WARPFORGE_GPU_CALL(cudaFree(nullptr)); !r)
    return unexpected("no usable CUDA device: " + r.error().to_string());
  auto api = driver_api::get();
  if (!api)
    return unexpected("CUDA driver entry points: " + api.error().to_string());
  device_session device;
  device.api = *api;
  if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetAttribute(
        &device.limits.shared_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
      !r)
    return unexpected(r.error().to_string());
  if (auto r = WARPFORGE_GPU_CALL(
        cudaDeviceGetAttribute(&device.limits.l2_bytes, cudaDevAttrL2CacheSize, 0));
      !r)
    return unexpected(r.error().to_string());
  return device;
}

expected<void, std::string> check_request_shape(const candidate_request& request,
                                                const std::string& kind) {
  if (request.seeds.empty())
    return unexpected(kind + ": no seeds");
  for (const auto& arg : request.args)
    if (const auto* b = std::get_if<candidate_buffer_arg>(&arg); b && b->count == 0)
      return unexpected(kind + ": buffer '" + b->name + "' has no elements");
  return {};
}

candidate_result make_result(vocabulary::branch_outcome outcome, std::string detail) {
  candidate_result r;
  r.outcome = outcome;
  r.detail = std::move(detail);
  return r;
}

candidate_result cuda_failure(const call_error& error, const std::string& what) {
  auto r = make_result(vocabulary::branch_outcome::runtime_error, what + ": " + error.to_string());
  switch (error.code) {
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_IMAGE: r.outcome = vocabulary::branch_outcome::not_supported; break;
    default: break;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) {
    r.runner_exits = true;
    r.notes.push_back("the CUDA context is lost (sticky error); the runner exits with code " +
                      std::to_string(runner_exit_context_lost) + " after this reply");
  }
  (void)cudaGetLastError();
  return r;
}

device_memory::~device_memory() {
  if (ptr)
    (void)cudaFree(ptr); // after a sticky error this fails; the process ends anyway
}

loaded_kernel::~loaded_kernel() {
  if (module)
    (void)api->module_unload(module);
}

std::optional<candidate_result> load_kernel(const device_session& device, const kernel_launch& k,
                                            const std::string& role, loaded_kernel& out) {
  const driver_api& api = *device.api;
  out.api = &api;
  out.launch = k;
  std::ifstream file{k.cubin_path, std::ios::binary};
  std::string image{std::istreambuf_iterator<char>{file}, {}};
  if (!file.good() && !file.eof())
    return make_result(vocabulary::branch_outcome::runtime_error,
                       role + ": cannot read CUBIN " + k.cubin_path.string());
  if (image.empty())
    return make_result(vocabulary::branch_outcome::runtime_error,
                       role + ": CUBIN " + k.cubin_path.string() + " is missing or empty");
  if (auto r = WARPFORGE_GPU_CALL(api.module_load_data(&out.module, image.data())); !r)
    return cuda_failure(r.error(), role + ": loading " + k.cubin_path.string());
  if (auto r = WARPFORGE_GPU_CALL(api.module_get_function(&out.function, out.module, k.entry.c_str()));
      !r)
    return cuda_failure(r.error(), role + ": entry '" + k.entry + "'");
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
    return make_result(vocabulary::branch_outcome::not_supported,
                       role + ": " + std::to_string(threads) + " threads per block, but '" +
                         k.entry + "' can run at most " + std::to_string(max_threads) +
                         " on this device (registers or launch bounds)");
  std::uint64_t smem = std::uint64_t{g.dynamic_smem_bytes} + static_cast<std::uint64_t>(static_smem);
  if (smem > static_cast<std::uint64_t>(device.limits.shared_optin_bytes))
    return make_result(vocabulary::branch_outcome::not_supported,
                       role + ": needs " + std::to_string(smem) +
                         " bytes of shared memory per block (static " +
                         std::to_string(static_smem) + " + dynamic " +
                         std::to_string(g.dynamic_smem_bytes) + "), this device allows " +
                         std::to_string(device.limits.shared_optin_bytes));
  if (g.dynamic_smem_bytes > default_dynamic_smem_limit_bytes) {
    if (auto r = WARPFORGE_GPU_CALL(api.func_set_attribute(
          out.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(g.dynamic_smem_bytes)));
        !r) {
      auto failure = cuda_failure(r.error(), role + ": opting in to " +
                                               std::to_string(g.dynamic_smem_bytes) +
                                               " bytes of dynamic shared memory");
      if (failure.outcome == vocabulary::branch_outcome::runtime_error && !failure.runner_exits)
        failure.outcome = vocabulary::branch_outcome::not_supported;
      return failure;
    }
  }
  return std::nullopt;
}

std::optional<candidate_result> allocate(const std::vector<candidate_arg>& args, device_args& out) {
  out.buffers.resize(args.size());
  out.pointers.assign(args.size(), 0);
  out.scalars.assign(args.size(), {});
  out.params.assign(args.size(), nullptr);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (const auto* b = std::get_if<candidate_buffer_arg>(&args[i])) {
      auto bytes = b->count * config::size_of(b->type);
      if (auto r = WARPFORGE_GPU_CALL(cudaMalloc(&out.buffers[i].ptr, bytes)); !r)
        return cuda_failure(r.error(), "allocating " + std::to_string(bytes) + " bytes for '" +
                                          b->name + "'");
      out.buffers[i].bytes = bytes;
      out.pointers[i] = reinterpret_cast<CUdeviceptr>(out.buffers[i].ptr);
      out.params[i] = &out.pointers[i];
    } else {
      out.scalars[i] = scalar_bytes(std::get<candidate_scalar_arg>(args[i]));
      out.params[i] = out.scalars[i].data();
    }
  }
  return std::nullopt;
}

namespace {

// The runner measures many candidates of one problem in a row, each on the same seeded inputs:
// generating them once per (seed, argument) and copying afterwards takes seconds off every
// candidate of a large problem. Bounded; cleared whole when full (a new problem's inputs).
class input_cache {
public:
  static constexpr std::size_t max_bytes = std::size_t{8} << 30;

  const std::vector<std::byte>* find(const candidate_buffer_arg& b, std::uint64_t seed, std::size_t index) const {
    auto it = entries_.find(key(b, seed, index));
    return it == entries_.end() ? nullptr : &it->second;
  }
  void put(const candidate_buffer_arg& b, std::uint64_t seed, std::size_t index, const std::vector<std::byte>& bytes) {
    if (bytes.size() > max_bytes / 4)
      return;
    if (bytes_ + bytes.size() > max_bytes) {
      entries_.clear();
      bytes_ = 0;
    }
    entries_[key(b, seed, index)] = bytes;
    bytes_ += bytes.size();
  }

private:
  // Everything the generated bytes depend on (input_fill.hpp): seed, argument index, dtype,
  // count and the distribution.
  static std::string key(const candidate_buffer_arg& b, std::uint64_t seed, std::size_t index) {
    std::ostringstream k;
    k.precision(17);
    k << seed << '/' << index << '/' << config::to_string(b.type) << '/' << b.count << '/'
      << config::to_string(b.init.kind) << '/' << b.init.low << '/' << b.init.high << '/' << b.init.mean
      << '/' << b.init.stddev << '/' << b.init.value;
    return k.str();
  }
  std::map<std::string, std::vector<std::byte>> entries_;
  std::size_t bytes_ = 0;
};

input_cache& inputs_seen() {
  static input_cache cache; // the runner serves one request at a time
  return cache;
}

} // namespace

std::optional<candidate_result> fill_host_args(const std::vector<candidate_arg>& args,
                                               std::uint64_t seed, host_buffers& out) {
  out.resize(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto* b = std::get_if<candidate_buffer_arg>(&args[i]);
    if (!b)
      continue;
    if (b->role != config::arg_role::output)
      if (const auto* seen = inputs_seen().find(*b, seed, i)) {
        out[i] = *seen;
        continue;
      }
    out[i].assign(b->count * config::size_of(b->type), std::byte{0});
    if (b->role == config::arg_role::output) {
      fill_poison(out[i], b->type);
    } else if (auto r = fill_input(out[i], b->type, b->init, seed, i); r) {
      inputs_seen().put(*b, seed, i, out[i]);
    } else {
      auto f = make_result(vocabulary::branch_outcome::runtime_error,
                           "cannot fill input '" + b->name + "': " +
                             std::string{to_string(r.error())});
      f.seed = seed;
      f.arg = b->name;
      return f;
    }
  }
  return std::nullopt;
}

std::optional<candidate_result> upload(const host_buffers& host, device_args& device) {
  for (std::size_t i = 0; i < host.size(); ++i)
    if (device.buffers[i].ptr)
      if (auto r = WARPFORGE_GPU_CALL(cudaMemcpy(device.buffers[i].ptr, host[i].data(),
                                                 host[i].size(), cudaMemcpyHostToDevice));
          !r)
        return cuda_failure(r.error(), "uploading arguments");
  return std::nullopt;
}

std::optional<candidate_result> download(const device_args& device, host_buffers& host) {
  host.resize(device.buffers.size());
  for (std::size_t i = 0; i < device.buffers.size(); ++i) {
    if (!device.buffers[i].ptr)
      continue;
    host[i].resize(device.buffers[i].bytes);
    if (auto r = WARPFORGE_GPU_CALL(cudaMemcpy(host[i].data(), device.buffers[i].ptr,
                                               host[i].size(), cudaMemcpyDeviceToHost));
        !r)
      return cuda_failure(r.error(), "downloading results");
  }
  return std::nullopt;
}

call_result launch(const loaded_kernel& k, void** params, cudaStream_t stream) {
  const auto& g = k.launch.launch;
  return WARPFORGE_GPU_CALL(k.api->launch_kernel(k.function, g.grid[0], g.grid[1], g.grid[2],
                                                 g.block[0], g.block[1], g.block[2],
                                                 g.dynamic_smem_bytes, stream, params, nullptr));
}

call_result launch_and_wait(const loaded_kernel& k, void** params, cudaStream_t stream) {
  if (auto r = launch(k, params, stream); !r)
    return r;
  return WARPFORGE_GPU_CALL(cudaStreamSynchronize(stream));
}

std::optional<candidate_result> prepare_candidate(const device_session& device,
                                                  const candidate_request& request,
                                                  std::uint64_t seed, prepared_candidate& out) {
  if (auto f = load_kernel(device, request.candidate, "candidate", out.kernel))
    return f;
  if (auto f = allocate(request.args, out.args))
    return f;
  if (auto f = fill_host_args(request.args, seed, out.initial))
    return f;
  return upload(out.initial, out.args);
}

} // namespace warpforge::gpu
