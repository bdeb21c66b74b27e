#include "transpose_launch.hpp"

#include "cuda_check.hpp"
#include "transpose_kernel.cuh"

void prepare_transpose() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, transpose));
}

void launch_transpose(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  const transpose_geometry geometry = transpose_launch_geometry(rows, cols);
  transpose<<<geometry.grid, geometry.block, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK(cudaGetLastError());
}
