#include "modes.hpp"

#include "cuda_check.hpp"
#include "device_matrix.hpp"
#include "transpose_launch.hpp"
#include "workload.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

namespace {

// The GPU time of every launch of one size, milliseconds, summed. One event pair per launch,
// all enqueued back to back and read once at the end, so timing does not stall the stream.
double bench_size(const workload_size& size) {
  device_matrix_pair buffers(size.rows, size.cols, size.seed);
  std::vector<cudaEvent_t> starts(static_cast<std::size_t>(size.launches));
  std::vector<cudaEvent_t> stops(starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    CUDA_CHECK(cudaEventCreate(&starts[i]));
    CUDA_CHECK(cudaEventCreate(&stops[i]));
  }
  for (std::size_t i = 0; i < starts.size(); ++i) {
    CUDA_CHECK(cudaEventRecord(starts[i], nullptr));
    launch_transpose(buffers.in(), buffers.out(), size.rows, size.cols, nullptr);
    CUDA_CHECK(cudaEventRecord(stops[i], nullptr));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  double total_ms = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, starts[i], stops[i]));
    total_ms += ms;
    CUDA_CHECK(cudaEventDestroy(starts[i]));
    CUDA_CHECK(cudaEventDestroy(stops[i]));
  }
  return total_ms;
}

} // namespace

void run_bench() {
  prepare_transpose();
  const auto begin = std::chrono::steady_clock::now();
  double kernel_ms = 0;
  for (const workload_size& size : workload_sizes) {
    const double size_ms = bench_size(size);
    kernel_ms += size_ms;
    std::printf("bench: %dx%d launches=%d kernel_ms=%.4f per_launch_us=%.2f\n", size.rows,
                size.cols, size.launches, size_ms, 1000.0 * size_ms / size.launches);
  }
  const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - begin;
  std::printf("RESULT: kernel_ms=%.4f wall_ms=%.4f\n", kernel_ms, wall.count());
}
