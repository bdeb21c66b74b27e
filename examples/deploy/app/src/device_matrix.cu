#include "device_matrix.hpp"

#include "cuda_check.hpp"

namespace {

// A value in [-1, 1) from the element's index and the seed (a 32-bit integer hash): the same
// inputs on every run, different for every size, made on the GPU so a large size costs no host time.
__global__ void fill_input(float* data, std::size_t count, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    std::uint32_t h = static_cast<std::uint32_t>(i) ^ (static_cast<std::uint32_t>(i >> 32) * 0x9e3779b9u);
    h ^= seed * 0x85ebca6bu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    data[i] = static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

} // namespace

device_matrix_pair::device_matrix_pair(int rows, int cols, std::uint32_t seed)
    : count_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
  CUDA_CHECK(cudaMalloc(&in_, count_ * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out_, count_ * sizeof(float)));
  fill_input<<<1024, 256>>>(in_, count_, seed);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
}

device_matrix_pair::~device_matrix_pair() {
  // No CUDA_CHECK: a destructor must not exit; a failure here would have shown up earlier.
  cudaFree(in_);
  cudaFree(out_);
}
