#include "modes.hpp"

#include "cuda_check.hpp"
#include "device_matrix.hpp"
#include "transpose_launch.hpp"
#include "workload.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// out[c][r] == in[r][c] for every element, bit for bit (a transpose moves values; an unwritten
// element still holds the 0xFF poison, a NaN, which equals nothing). Prints the first mismatch.
bool matches_cpu_transpose(const workload_size& size, const std::vector<float>& in,
                           const std::vector<float>& out) {
  const std::size_t rows = static_cast<std::size_t>(size.rows);
  const std::size_t cols = static_cast<std::size_t>(size.cols);
  for (std::size_t c = 0; c < cols; ++c)
    for (std::size_t r = 0; r < rows; ++r) {
      const float expected = in[r * cols + c];
      const float got = out[c * rows + r];
      if (std::memcmp(&expected, &got, sizeof(float)) != 0) {
        std::fprintf(stderr,
                     "check: FAILED at size %dx%d: out[%zu][%zu] (element %zu) = %.9g, expected "
                     "in[%zu][%zu] = %.9g\n",
                     size.rows, size.cols, c, r, c * rows + r, got, r, c, expected);
        return false;
      }
    }
  return true;
}

bool check_size(const workload_size& size) {
  device_matrix_pair buffers(size.rows, size.cols, size.seed);
  CUDA_CHECK(cudaMemset(buffers.out(), 0xFF, buffers.count() * sizeof(float)));
  launch_transpose(buffers.in(), buffers.out(), size.rows, size.cols, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> in(buffers.count());
  std::vector<float> out(buffers.count());
  CUDA_CHECK(cudaMemcpy(in.data(), buffers.in(), in.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out.data(), buffers.out(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return matches_cpu_transpose(size, in, out);
}

} // namespace

bool run_check() {
  prepare_transpose();
  for (const workload_size& size : workload_sizes) {
    if (!check_size(size))
      return false;
    std::printf("check: %dx%d ok\n", size.rows, size.cols);
  }
  std::printf("check: ok\n");
  return true;
}
