#include "gpu/runtime/device_query.hpp"

#include "gpu/runtime/counter_probe.hpp"
#include "gpu/runtime/cuda_call.hpp"

#include <cupti_version.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace warpforge::gpu {

gpu_status classify_device_count_error(cudaError_t error) {
  switch (error) {
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch: return gpu_status::no_driver;
    case cudaErrorNoDevice: return gpu_status::no_device;
    default: return gpu_status::error;
  }
}

namespace {

constexpr std::size_t pci_bus_id_capacity = 32; // "0000:3b:00.0" plus slack, as CUDA suggests

std::string format_uuid(const cudaUUID_t& uuid) {
  constexpr std::size_t uuid_bytes = sizeof(uuid.bytes);
  std::string out = "GPU-";
  char hex[3];
  for (std::size_t i = 0; i < uuid_bytes; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out += '-';
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex;
  }
  return out;
}

// A clock attribute in kHz, or 0 with a note saying why.
std::uint64_t clock_khz(int ordinal, cudaDeviceAttr attribute, std::string_view name,
                        std::vector<std::string>& notes) {
  int khz = 0;
  if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetAttribute(&khz, attribute, ordinal)); !r) {
    notes.push_back(std::string{name} + " unknown: " + r.error().to_string());
    return 0;
  }
  if (khz <= 0) {
    notes.push_back(std::string{name} + " unknown: the driver reported " + std::to_string(khz));
    return 0;
  }
  return static_cast<std::uint64_t>(khz);
}

// Fills `d` for one device; false when even its properties were unreadable.
bool query_device(int ordinal, device_query_depth depth, const profiling_restriction& restriction,
                  std::uint32_t euid, device_info& d) {
  d.ordinal = ordinal;
  cudaDeviceProp p{};
  if (auto r = WARPFORGE_GPU_CALL(cudaGetDeviceProperties(&p, ordinal)); !r) {
    d.notes.push_back("properties unknown: " + r.error().to_string());
    d.counter_reason = "device properties unreadable";
    return false;
  }
  d.name = p.name;
  d.uuid = format_uuid(p.uuid);
  d.sm_major = p.major;
  d.sm_minor = p.minor;
  d.memory_bytes = p.totalGlobalMem;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.shared_memory_per_block_optin_bytes = p.sharedMemPerBlockOptin;
  d.registers_per_sm = p.regsPerMultiprocessor;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.memory_bus_width_bits = p.memoryBusWidth;
  d.ecc_enabled = p.ECCEnabled != 0;

  char bus_id[pci_bus_id_capacity] = {};
  if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal)); r)
    d.pci_bus_id = bus_id;
  else
    d.notes.push_back("pci bus id unknown: " + r.error().to_string());

  // cudaDeviceProp lost clockRate and memoryClockRate in CUDA 13; the attributes remain.
  d.sm_clock_khz = clock_khz(ordinal, cudaDevAttrClockRate, "sm clock", d.notes);
  d.memory_clock_khz = clock_khz(ordinal, cudaDevAttrMemoryClockRate, "memory clock", d.notes);

  if (depth == device_query_depth::properties) {
    d.counters = counter_access::unknown;
    d.counter_reason = "not probed: the query asked for properties only (warpforge doctor probes them)";
    return true;
  }
  // CUPTI asks about the current context: make this device's primary context current.
  call_result context = WARPFORGE_GPU_CALL(cudaSetDevice(ordinal));
  if (context)
    context = WARPFORGE_GPU_CALL(cudaFree(nullptr));
  if (!context) {
    d.counters = counter_access::unknown;
    d.counter_reason = "no CUDA context: " + context.error().to_string();
    return true;
  }
  auto verdict = probe_counter_access(ordinal, restriction, euid);
  d.counters = verdict.access;
  d.counter_reason = std::move(verdict.reason);
  return true;
}

std::string no_gpu_reason(gpu_status status, const call_error& error, const host_report& r) {
  switch (status) {
    case gpu_status::no_driver:
      if (r.driver_version == 0)
        return "no CUDA driver: libcuda.so.1 could not be loaded (is the NVIDIA driver installed "
               "and on LD_LIBRARY_PATH?); " + error.to_string();
      return "the CUDA driver (" + cuda_version_text(r.driver_version) +
             ") is older than the runtime (" + cuda_version_text(r.runtime_version) + "); " +
             error.to_string();
    case gpu_status::no_device:
      return "no CUDA-capable device is visible (CUDA_VISIBLE_DEVICES=" +
             r.visible_devices.value_or("<unset>") + "); " + error.to_string();
    case gpu_status::ok:
    case gpu_status::error: break;
  }
  return error.to_string();
}

} // namespace

host_report query_host(device_query_depth depth, phase_clock& clock) {
  host_report r;
  r.effective_uid = static_cast<std::uint32_t>(::geteuid());
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    r.visible_devices = visible;
  auto restriction = read_profiling_restriction();
  r.profiling_admin_only_known = restriction.known;
  r.profiling_admin_only = restriction.admin_only;

  std::vector<std::string> version_problems;
  if (auto v = WARPFORGE_GPU_CALL(cudaRuntimeGetVersion(&r.runtime_version)); !v)
    version_problems.push_back(v.error().to_string());
  if (auto v = WARPFORGE_GPU_CALL(cudaDriverGetVersion(&r.driver_version)); !v)
    version_problems.push_back(v.error().to_string());
  if (auto v = WARPFORGE_GPU_CALL(cuptiGetVersion(&r.cupti_version)); !v)
    version_problems.push_back(v.error().to_string());

  int count = 0;
  auto counted = WARPFORGE_GPU_CALL(cudaGetDeviceCount(&count));
  clock.mark("driver");
  if (auto c = counted; !c) {
    r.status = classify_device_count_error(static_cast<cudaError_t>(c.error().code));
    r.reason = no_gpu_reason(r.status, c.error(), r);
    return r;
  }
  r.device_count = count;
  if (count == 0) {
    r.status = gpu_status::no_device;
    r.reason = "cudaGetDeviceCount found 0 devices (CUDA_VISIBLE_DEVICES=" +
               r.visible_devices.value_or("<unset>") + ")";
    return r;
  }
  int answered = 0;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    device_info d;
    if (query_device(ordinal, depth, restriction, r.effective_uid, d))
      ++answered;
    clock.mark("device " + std::to_string(ordinal));
    r.devices.push_back(std::move(d));
  }
  if (answered == 0) {
    r.status = gpu_status::error;
    r.reason = "no device answered: " + r.devices.front().notes.front();
  } else {
    r.status = gpu_status::ok;
  }
  for (const auto& problem : version_problems)
    r.reason += (r.reason.empty() ? "" : "; ") + problem;
  return r;
}

} // namespace warpforge::gpu
