#include "gpu/runtime/sm_clock.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>

namespace warpforge::gpu {

namespace {

constexpr double hz_per_mhz = 1e6;
constexpr int nvml_clock_sm = 1; // NVML_CLOCK_SM in nvml.h
constexpr int nvml_success = 0;
constexpr std::size_t pci_bus_id_chars = 32;

} // namespace

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
    if (std::find(notes.begin(), notes.end(), text) == notes.end())
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

} // namespace warpforge::gpu
