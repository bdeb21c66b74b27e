#include "gpu/runtime/execute.hpp"

#include "gpu/check/float16.hpp"
#include "gpu/check/poison.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/driver_api.hpp"

#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

namespace warpforge::gpu {

namespace {

using steady = std::chrono::steady_clock;
constexpr double seconds_per_ms = 1e-3;
constexpr double hz_per_mhz = 1e6;
constexpr int nvml_clock_sm = 1; // NVML_CLOCK_SM in nvml.h
constexpr int nvml_success = 0;
constexpr std::size_t pci_bus_id_chars = 32;

candidate_result make_result(candidate_outcome outcome, std::string detail) {
  candidate_result r;
  r.outcome = outcome;
  r.detail = std::move(detail);
  return r;
}

// A CUDA failure while loading or running: runtime_error, or not_supported for what this device
// cannot give; the context is lost when a device synchronize fails afterwards (sticky error).
candidate_result cuda_failure(const call_error& error, const std::string& what) {
  auto r = make_result(candidate_outcome::runtime_error, what + ": " + error.to_string());
  switch (error.code) {
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_IMAGE: r.outcome = candidate_outcome::not_supported; break;
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

struct device_memory {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  device_memory(device_memory&& o) noexcept : ptr(std::exchange(o.ptr, nullptr)), bytes(o.bytes) {}
  ~device_memory() {
    if (ptr)
      (void)cudaFree(ptr); // after a sticky error this fails; the process ends anyway
  }
};

struct loaded_kernel {
  const driver_api* api = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  kernel_launch launch;
  loaded_kernel() = default;
  loaded_kernel(const loaded_kernel&) = delete;
  loaded_kernel& operator=(const loaded_kernel&) = delete;
  ~loaded_kernel() {
    if (module)
      (void)api->module_unload(module);
  }
};

struct device_limits {
  int shared_optin_bytes = 0;
  int l2_bytes = 0;
};

// Loads one CUBIN and checks that its launch fits the device; a result is a failure outcome.
std::optional<candidate_result> load_kernel(const driver_api& api, const kernel_launch& k,
                                            const device_limits& limits, const std::string& role,
                                            loaded_kernel& out) {
  out.api = &api;
  out.launch = k;
  std::ifstream file{k.cubin_path, std::ios::binary};
  std::string image{std::istreambuf_iterator<char>{file}, {}};
  if (!file.good() && !file.eof())
    return make_result(candidate_outcome::runtime_error,
                       role + ": cannot read CUBIN " + k.cubin_path.string());
  if (image.empty())
    return make_result(candidate_outcome::runtime_error,
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
    return make_result(candidate_outcome::not_supported,
                       role + ": " + std::to_string(threads) + " threads per block, but '" +
                         k.entry + "' can run at most " + std::to_string(max_threads) +
                         " on this device (registers or launch bounds)");
  std::uint64_t smem = std::uint64_t{g.dynamic_smem_bytes} + static_cast<std::uint64_t>(static_smem);
  if (smem > static_cast<std::uint64_t>(limits.shared_optin_bytes))
    return make_result(candidate_outcome::not_supported,
                       role + ": needs " + std::to_string(smem) +
                         " bytes of shared memory per block (static " +
                         std::to_string(static_smem) + " + dynamic " +
                         std::to_string(g.dynamic_smem_bytes) + "), this device allows " +
                         std::to_string(limits.shared_optin_bytes));
  if (g.dynamic_smem_bytes > default_dynamic_smem_limit_bytes) {
    if (auto r = WARPFORGE_GPU_CALL(api.func_set_attribute(
          out.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(g.dynamic_smem_bytes)));
        !r) {
      auto failure = cuda_failure(r.error(), role + ": opting in to " +
                                               std::to_string(g.dynamic_smem_bytes) +
                                               " bytes of dynamic shared memory");
      if (failure.outcome == candidate_outcome::runtime_error && !failure.runner_exits)
        failure.outcome = candidate_outcome::not_supported;
      return failure;
    }
  }
  return std::nullopt;
}

call_result launch(const driver_api& api, const loaded_kernel& k, void** params,
                   cudaStream_t stream) {
  const auto& g = k.launch.launch;
  return WARPFORGE_GPU_CALL(api.launch_kernel(k.function, g.grid[0], g.grid[1], g.grid[2],
                                              g.block[0], g.block[1], g.block[2],
                                              g.dynamic_smem_bytes, stream, params, nullptr));
}

// Launch, then wait: errors of the launch and of the run both surface here.
call_result launch_and_wait(const driver_api& api, const loaded_kernel& k, void** params,
                            cudaStream_t stream) {
  if (auto r = launch(api, k, params, stream); !r)
    return r;
  return WARPFORGE_GPU_CALL(cudaStreamSynchronize(stream));
}

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

// One set of device arguments (the candidate's or the reference's).
struct device_args {
  std::vector<device_memory> buffers;              // per arg; empty for scalars
  std::vector<CUdeviceptr> pointers;               // per arg
  std::vector<std::array<std::byte, 8>> scalars;   // per arg
  std::vector<void*> params;                       // per arg: what cuLaunchKernel reads
};

std::optional<candidate_result> allocate(const std::vector<candidate_arg>& args,
                                         device_args& out) {
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

std::optional<candidate_result> upload(const std::vector<std::vector<std::byte>>& host,
                                       device_args& device) {
  for (std::size_t i = 0; i < host.size(); ++i)
    if (device.buffers[i].ptr)
      if (auto r = WARPFORGE_GPU_CALL(cudaMemcpy(device.buffers[i].ptr, host[i].data(),
                                                 host[i].size(), cudaMemcpyHostToDevice));
          !r)
        return cuda_failure(r.error(), "uploading arguments");
  return std::nullopt;
}

std::optional<candidate_result> download(const device_args& device,
                                         std::vector<std::vector<std::byte>>& host) {
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

// The SM clock now, Hz, via NVML (dlopen: optional on the node); 0 and a note when unknown.
double sm_clock_hz(std::vector<std::string>& notes) {
  using init_fn = int (*)();
  using by_pci_fn = int (*)(const char*, void**);
  using clock_fn = int (*)(void*, int, unsigned*);
  static void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  static bool initialised = library && [] {
    auto init = reinterpret_cast<init_fn>(::dlsym(library, "nvmlInit_v2"));
    return init && init() == nvml_success;
  }();
  auto note = [&](std::string text) {
    for (const auto& n : notes)
      if (n == text)
        return 0.0;
    notes.push_back(std::move(text));
    return 0.0;
  };
  if (!initialised)
    return note("SM clock unknown: NVML (libnvidia-ml.so.1) not available or not initialised");
  auto by_pci = reinterpret_cast<by_pci_fn>(::dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<clock_fn>(::dlsym(library, "nvmlDeviceGetClockInfo"));
  char pci[pci_bus_id_chars] = {};
  int device = 0;
  void* handle = nullptr;
  unsigned mhz = 0;
  if (!by_pci || !clock || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetPCIBusId(pci, sizeof pci, device) != cudaSuccess ||
      by_pci(pci, &handle) != nvml_success || clock(handle, nvml_clock_sm, &mhz) != nvml_success)
    return note("SM clock unknown: NVML could not read it");
  return mhz * hz_per_mhz;
}

std::string describe_mismatch(const candidate_buffer_arg& b, const compare_report& c,
                              std::size_t poisoned) {
  std::ostringstream out;
  out << "output '" << b.name << "': ";
  if (c.mismatches)
    out << c.mismatches << " of " << c.elements << " elements outside tolerance (rtol "
        << b.tol.rtol << ", atol " << b.tol.atol << "), first at index "
        << c.first_bad_index.value_or(0) << " (got " << c.first_bad_got << ", want "
        << c.first_bad_want << "); ";
  if (poisoned)
    out << poisoned << " elements never written (still poisoned)";
  return out.str();
}

struct stream_guard {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  ~stream_guard() {
    if (start)
      (void)cudaEventDestroy(start);
    if (stop)
      (void)cudaEventDestroy(stop);
    if (stream)
      (void)cudaStreamDestroy(stream);
  }
};

} // namespace

expected<candidate_result, std::string> execute_candidate(const candidate_request& request) {
  if (!request.reference)
    return make_result(candidate_outcome::not_supported,
                       "reference from an expected-values file is not supported by this runner "
                       "yet: send a reference kernel");
  if (request.seeds.empty())
    return unexpected(std::string{"run_candidate: no seeds"});
  for (const auto& arg : request.args)
    if (const auto* b = std::get_if<candidate_buffer_arg>(&arg); b && b->count == 0)
      return unexpected("run_candidate: buffer '" + b->name + "' has no elements");

  // The device, its primary context and the driver entry points.
  if (auto r = WARPFORGE_GPU_CALL(cudaSetDevice(0)); !r)
    return unexpected("no usable CUDA device: " + r.error().to_string());
  if (auto r = WARPFORGE_GPU_CALL(cudaFree(nullptr)); !r)
    return unexpected("no usable CUDA device: " + r.error().to_string());
  auto api_result = driver_api::get();
  if (!api_result)
    return unexpected("CUDA driver entry points: " + api_result.error().to_string());
  const driver_api& api = **api_result;
  device_limits limits;
  if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetAttribute(
        &limits.shared_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
      !r)
    return unexpected(r.error().to_string());
  if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetAttribute(&limits.l2_bytes, cudaDevAttrL2CacheSize, 0));
      !r)
    return unexpected(r.error().to_string());

  loaded_kernel reference;
  loaded_kernel candidate;
  if (auto f = load_kernel(api, *request.reference, limits, "reference", reference)) {
    f->detail += " (the reference itself failed)";
    return *f;
  }
  if (auto f = load_kernel(api, request.candidate, limits, "candidate", candidate))
    return *f;

  device_args reference_args;
  device_args candidate_args;
  if (auto f = allocate(request.args, reference_args))
    return *f;
  if (auto f = allocate(request.args, candidate_args))
    return *f;
  stream_guard s;
  if (auto r = WARPFORGE_GPU_CALL(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking)); !r)
    return cuda_failure(r.error(), "creating the stream");
  if (auto r = WARPFORGE_GPU_CALL(cudaEventCreate(&s.start)); !r)
    return cuda_failure(r.error(), "creating events");
  if (auto r = WARPFORGE_GPU_CALL(cudaEventCreate(&s.stop)); !r)
    return cuda_failure(r.error(), "creating events");

  // Correctness, on every seed.
  std::vector<std::vector<std::byte>> initial(request.args.size());
  std::vector<std::vector<std::byte>> want;
  std::vector<std::vector<std::byte>> got;
  for (auto seed : request.seeds) {
    for (std::size_t i = 0; i < request.args.size(); ++i) {
      const auto* b = std::get_if<candidate_buffer_arg>(&request.args[i]);
      if (!b)
        continue;
      initial[i].assign(b->count * config::size_of(b->type), std::byte{0});
      if (b->role == config::arg_role::output) {
        fill_poison(initial[i], b->type);
      } else if (auto r = fill_input(initial[i], b->type, b->init, seed, i); !r) {
        auto f = make_result(candidate_outcome::runtime_error,
                             "cannot fill input '" + b->name + "': " +
                               std::string{to_string(r.error())});
        f.seed = seed;
        f.arg = b->name;
        return f;
      }
    }
    if (auto f = upload(initial, reference_args))
      return *f;
    if (auto r = launch_and_wait(api, reference, reference_args.params.data(), s.stream); !r) {
      auto f = cuda_failure(r.error(), "reference kernel '" + reference.launch.entry + "'");
      f.detail += " (the reference itself failed)";
      f.seed = seed;
      return f;
    }
    if (auto f = download(reference_args, want))
      return *f;
    if (auto f = upload(initial, candidate_args)) // fresh inputs, poisoned outputs
      return *f;
    if (auto r = launch_and_wait(api, candidate, candidate_args.params.data(), s.stream); !r) {
      auto f = cuda_failure(r.error(), "candidate kernel '" + candidate.launch.entry + "'");
      f.seed = seed;
      return f;
    }
    if (auto f = download(candidate_args, got))
      return *f;
    for (std::size_t i = 0; i < request.args.size(); ++i) {
      const auto* b = std::get_if<candidate_buffer_arg>(&request.args[i]);
      if (!b)
        continue;
      if (b->role == config::arg_role::input) {
        auto check = inputs_unchanged(initial[i], got[i]);
        if (!check.unchanged) {
          auto f = make_result(candidate_outcome::incorrect,
                               "input '" + b->name + "' was changed by the kernel (first at byte " +
                                 std::to_string(check.first_difference.value_or(0)) + ")");
          f.seed = seed;
          f.arg = b->name;
          f.input = check;
          return f;
        }
        continue;
      }
      auto report = compare_outputs(got[i], want[i], b->type, b->tol);
      if (!report)
        return make_result(candidate_outcome::runtime_error,
                           "comparing '" + b->name + "': " + std::string{to_string(report.error())});
      auto poisoned = count_poisoned(got[i], b->type);
      auto reference_poisoned = count_poisoned(want[i], b->type);
      if (!report->passed || poisoned > reference_poisoned) {
        auto f = make_result(candidate_outcome::incorrect, describe_mismatch(*b, *report, poisoned));
        f.seed = seed;
        f.arg = b->name;
        f.compare = *report;
        return f;
      }
    }
  }

  // Timing.
  candidate_result result = make_result(candidate_outcome::passed, "");
  result.notes.push_back("measured on device 0 of those visible to the runner");
  device_memory flush;
  if (request.mode == timing_mode::cold) {
    flush.bytes = l2_flush_size_factor * static_cast<std::uint64_t>(limits.l2_bytes);
    if (auto r = WARPFORGE_GPU_CALL(cudaMalloc(&flush.ptr, flush.bytes)); !r)
      return cuda_failure(r.error(), "allocating the L2 flush buffer");
    result.notes.push_back("cold: L2 flushed before each sample by a memset of " +
                           std::to_string(flush.bytes) + " bytes (2x L2), outside the events");
  }
  result.sm_clock_hz_before = sm_clock_hz(result.notes);
  void** params = candidate_args.params.data();
  auto warmup_start = steady::now();
  for (std::uint32_t n = 0;
       n < request.timing.warmup_launches ||
       std::chrono::duration<double>(steady::now() - warmup_start).count() <
         request.timing.warmup_min_time_s;
       ++n)
    if (auto r = launch_and_wait(api, candidate, params, s.stream); !r)
      return cuda_failure(r.error(), "candidate warm-up launch");

  stopping_rule rule{request.timing};
  std::vector<double> samples;
  auto timing_start = steady::now();
  int flush_value = 0;
  while (!is_final(rule.decision())) {
    if (flush.ptr)
      if (auto r = WARPFORGE_GPU_CALL(cudaMemsetAsync(flush.ptr, ++flush_value & 0xff, flush.bytes,
                                                      s.stream));
          !r)
        return cuda_failure(r.error(), "L2 flush");
    if (auto r = WARPFORGE_GPU_CALL(cudaEventRecord(s.start, s.stream)); !r)
      return cuda_failure(r.error(), "timing");
    if (auto r = launch(api, candidate, params, s.stream); !r)
      return cuda_failure(r.error(), "candidate timed launch");
    if (auto r = WARPFORGE_GPU_CALL(cudaEventRecord(s.stop, s.stream)); !r)
      return cuda_failure(r.error(), "timing");
    if (auto r = WARPFORGE_GPU_CALL(cudaEventSynchronize(s.stop)); !r)
      return cuda_failure(r.error(), "candidate timed launch");
    float ms = 0;
    if (auto r = WARPFORGE_GPU_CALL(cudaEventElapsedTime(&ms, s.start, s.stop)); !r)
      return cuda_failure(r.error(), "timing");
    samples.push_back(ms * seconds_per_ms);
    rule.add(samples.back());
    rule.set_wall_elapsed(std::chrono::duration<double>(steady::now() - timing_start).count());
  }
  result.wall_s = std::chrono::duration<double>(steady::now() - timing_start).count();
  result.sm_clock_hz_after = sm_clock_hz(result.notes);
  result.stats = summarize(samples);
  result.decision = rule.decision();
  return result;
}

} // namespace warpforge::gpu
