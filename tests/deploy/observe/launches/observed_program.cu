// A small CUDA program for the injection library's GPU test (inject_gpu_test.cpp): it launches
// the kernels listed in observed_program.hpp through both launch paths (<<<>>> and the driver's
// cuLaunchKernel) and checks their results, exiting 0 when they are right.
// Built by nvcc at build time (CMakeLists.txt). It does not link libcuda: the driver's
// cuLaunchKernel comes from cudaGetDriverEntryPointByVersion, so the program starts on a machine
// without a driver and exits with no_gpu_exit_code.

#include "observed_program.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdio>
#include <vector>

using namespace observed_program;

template <typename T>
__global__ void scale(T* data, int n, T factor) {
  extern __shared__ unsigned char unused_dynamic_smem[];
  int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (int i = block * threads_per_block + thread; i < n;
       i += threads_per_block * gridDim.x * gridDim.y * gridDim.z)
    data[i] *= factor;
  (void)unused_dynamic_smem;
}

extern "C" __global__ void add_offset(long long* data, int n, long long offset) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    data[i] += offset;
}

namespace {

int fail(const char* what, cudaError_t error) {
  std::fprintf(stderr, "observed_program: %s: %s\n", what, cudaGetErrorString(error));
  return 1;
}

int run_driver_launches() {
  PFN_cuLaunchKernel_v4000 launch = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaError_t error = cudaGetDriverEntryPointByVersion("cuLaunchKernel", reinterpret_cast<void**>(&launch),
                                                       12000, cudaEnableDefault, &found);
  if (error != cudaSuccess || found != cudaDriverEntryPointSuccess) return fail("cuLaunchKernel entry point", error);
  cudaFunction_t function = nullptr;
  if ((error = cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(add_offset))) != cudaSuccess)
    return fail("cudaGetFuncBySymbol(add_offset)", error);
  long long* data = nullptr;
  if ((error = cudaMalloc(&data, driver_n * sizeof(long long))) != cudaSuccess) return fail("cudaMalloc", error);
  cudaMemset(data, 0, driver_n * sizeof(long long));
  int n = driver_n;
  long long offset = driver_offset;
  void* args[] = {&data, &n, &offset};
  for (int r = 0; r < driver_repeats; ++r) {
    CUresult result = launch(reinterpret_cast<CUfunction>(function), driver_grid, 1, 1, driver_block, 1, 1,
                             driver_dynamic_smem, nullptr, args, nullptr);
    if (result != CUDA_SUCCESS) {
      std::fprintf(stderr, "observed_program: cuLaunchKernel: CUresult %d\n", static_cast<int>(result));
      return 1;
    }
  }
  std::vector<long long> host(driver_n);
  if ((error = cudaMemcpy(host.data(), data, driver_n * sizeof(long long), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return fail("cudaMemcpy (add_offset)", error);
  cudaFree(data);
  for (long long value : host)
    if (value != driver_repeats * driver_offset) return fail("add_offset computed a wrong value", cudaSuccess);
  return 0;
}

int run_runtime_launches() {
  int largest = 0;
  for (const scale_geometry& g : scale_geometries) largest = g.n > largest ? g.n : largest;
  float* data = nullptr;
  cudaError_t error = cudaMalloc(&data, largest * sizeof(float));
  if (error != cudaSuccess) return fail("cudaMalloc", error);
  for (const scale_geometry& g : scale_geometries) {
    std::vector<float> host(g.n, 1.0f);
    cudaMemcpy(data, host.data(), g.n * sizeof(float), cudaMemcpyHostToDevice);
    for (int r = 0; r < scale_repeats; ++r)
      scale<float><<<dim3(g.grid[0], g.grid[1], g.grid[2]), dim3(g.block[0], g.block[1], g.block[2]),
                     g.dynamic_smem>>>(data, g.n, g.factor);
    if ((error = cudaGetLastError()) != cudaSuccess) return fail("scale<<<>>>", error);
    if ((error = cudaMemcpy(host.data(), data, g.n * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess)
      return fail("cudaMemcpy (scale)", error);
    float expected = g.factor * g.factor * g.factor; // scale_repeats == 3 multiplications of 1.0
    for (float value : host)
      if (value != expected) return fail("scale computed a wrong value", cudaSuccess);
  }
  cudaFree(data);
  return 0;
}

} // namespace

int main() {
  int devices = 0;
  cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "observed_program: no usable GPU (%s)\n",
                 error != cudaSuccess ? cudaGetErrorString(error) : "no devices");
    return no_gpu_exit_code;
  }
  static_assert(scale_repeats == 3, "run_runtime_launches' expected value assumes 3 repeats");
  if (int rc = run_driver_launches(); rc != 0) return rc;
  if (int rc = run_runtime_launches(); rc != 0) return rc;
  if ((error = cudaDeviceSynchronize()) != cudaSuccess) return fail("cudaDeviceSynchronize", error);
  std::printf("observed_program: ok\n");
  return 0;
}
