#pragma once
// Shared by every built-in calibration benchmark (calibrate/bench/kernels/*.cu): CUDA call
// checking, the in-kernel clock window, device facts and the RESULT lines the engine reads
// (gpu/runner/program_run.hpp, "program mode"):
//
//   RESULT: value=<the parameter, in the catalog's unit> sm_clock_mhz=<SM clock while measuring>
//   RESULT: curve_x=<bytes or the sweep's x> curve_y=<cycles>      (sweeps only, zero or more)
//
// The registry (calibrate/bench/registry.cpp) pastes this header in place of its #include line,
// so the program the engine builds is one self-contained .cu file. Written for warpforge.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Every CUDA runtime call goes through this: a failure names the call and its place, exits 1.
#define WF_CHECK(call) wf_check((call), #call, __FILE__, __LINE__)

static void wf_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess)
    return;
  std::fprintf(stderr, "ERROR: %s failed at %s:%d: %s\n", call, file, line,
               cudaGetErrorString(status));
  std::exit(1);
}

// A measurement that cannot be trusted (zero time, zero cycles, an impossible count) is an error,
// never a RESULT: the engine classifies the non-zero exit as a runtime error.
static void wf_fail(const char* what) {
  std::fprintf(stderr, "ERROR: %s\n", what);
  std::exit(2);
}

// %globaltimer: the GPU's nanosecond wall clock (its update period is about 1 us or finer, so
// windows are kept >= 1 ms long for a clock estimate better than 0.1%).
__device__ __forceinline__ unsigned long long wf_globaltimer_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// One measured window on one SM: clock64() and %globaltimer read at its start and end.
struct wf_window {
  long long cycles;        // SM clock cycles between the two reads
  unsigned long long ns;   // nanoseconds between the two reads
};

struct wf_window_start {
  long long clock;         // clock64() at the start, cycles
  unsigned long long ns;   // %globaltimer at the start, ns
};

__device__ __forceinline__ wf_window_start wf_open_window() {
  wf_window_start start;
  start.ns = wf_globaltimer_ns();
  start.clock = clock64();
  return start;
}

__device__ __forceinline__ wf_window wf_close_window(const wf_window_start& start) {
  const long long clock = clock64();
  const unsigned long long ns = wf_globaltimer_ns();
  wf_window window;
  window.cycles = clock - start.clock;
  window.ns = ns - start.ns;
  return window;
}

// The SM clock over a set of windows, MHz: total cycles over total nanoseconds (cycles/ns = GHz).
static double wf_clock_mhz(const std::vector<wf_window>& windows) {
  double cycles = 0, ns = 0;
  for (const auto& window : windows) {
    cycles += static_cast<double>(window.cycles);
    ns += static_cast<double>(window.ns);
  }
  if (cycles <= 0 || ns <= 0)
    wf_fail("the clock window measured no time");
  return cycles / ns * 1000.0;
}

static double wf_median(std::vector<double> values) {
  if (values.empty())
    wf_fail("no samples for a median");
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

static cudaDeviceProp wf_device() {
  int device = 0;
  WF_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  WF_CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("# device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount);
  return prop;
}

// Dynamic shared memory that lets at most one block of a kernel live on an SM (more than half of
// an SM's shared memory), so a grid of one block per SM puts exactly one block on every SM and
// a block's window is its SM's window. Also raises the kernel's limit to allow it.
template <class Kernel>
static std::size_t wf_one_block_per_sm(Kernel kernel, const cudaDeviceProp& prop) {
  const std::size_t bytes = prop.sharedMemPerMultiprocessor / 2 + 1024;
  if (bytes > prop.sharedMemPerBlockOptin)
    wf_fail("cannot reserve more than half an SM's shared memory for one block");
  WF_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(bytes)));
  return bytes;
}

static void wf_print_result(double value, double sm_clock_mhz) {
  std::printf("RESULT: value=%.6g sm_clock_mhz=%.6g\n", value, sm_clock_mhz);
}

static void wf_print_curve_point(double x, double y) {
  std::printf("RESULT: curve_x=%.6g curve_y=%.6g\n", x, y);
}

// Device memory freed at scope exit (a benchmark may allocate several buffers).
template <class T>
struct wf_buffer {
  T* data = nullptr;
  std::size_t count = 0; // elements

  explicit wf_buffer(std::size_t elements) : count(elements) {
    WF_CHECK(cudaMalloc(&data, elements * sizeof(T)));
    WF_CHECK(cudaMemset(data, 0, elements * sizeof(T)));
  }
  ~wf_buffer() { cudaFree(data); }
  wf_buffer(const wf_buffer&) = delete;
  wf_buffer& operator=(const wf_buffer&) = delete;

  std::vector<T> to_host() const {
    std::vector<T> host(count);
    WF_CHECK(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

static void wf_sync_kernel(const char* what) {
  const cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    std::fprintf(stderr, "ERROR: launching %s: %s\n", what, cudaGetErrorString(launch));
    std::exit(1);
  }
  const cudaError_t run = cudaDeviceSynchronize();
  if (run != cudaSuccess) {
    std::fprintf(stderr, "ERROR: running %s: %s\n", what, cudaGetErrorString(run));
    std::exit(1);
  }
}
