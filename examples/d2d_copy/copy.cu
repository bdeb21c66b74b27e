// Device-to-device copy bandwidth, a program-mode benchmark (a whole program with main()):
//   warpforge program examples/d2d_copy/copy.cu --trials 5
// Copies a 512 MiB buffer with cudaMemcpyAsync (device to device) 20 times after a warm-up, times
// each copy with CUDA events and prints the median as RESULT lines (docs/measurement.md, "Program
// mode"). Bandwidth counts each byte twice (read and written), as the bench tables do, so it is
// the ceiling a memory-bound kernel such as a transpose is compared with.
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t status = (call);                                                        \
    if (status != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status));     \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main() {
  constexpr size_t bytes = size_t{512} << 20;
  constexpr int repeats = 20;
  void* source = nullptr;
  void* target = nullptr;
  CHECK(cudaMalloc(&source, bytes));
  CHECK(cudaMalloc(&target, bytes));
  CHECK(cudaMemset(source, 1, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i)
    CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  std::sort(ms.begin(), ms.end());
  const double median_s = (ms[repeats / 2 - 1] + ms[repeats / 2]) / 2 * 1e-3;
  std::printf("RESULT: copy_s=%.9e d2d_gbs=%.3f\n", median_s, 2.0 * bytes / median_s / 1e9);
  return 0;
}
