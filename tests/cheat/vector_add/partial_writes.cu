// CHEAT (partial writes): after its first two launches it writes only the even elements and
// leaves the odd ones as an earlier launch wrote them.
// Must get: inconsistent.
#ifndef BLOCK
#define BLOCK 256
#endif

__device__ unsigned int launches;
__device__ unsigned int blocks_done;

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  const bool write = launches < 2 || (i & 1) == 0;
  if (write && i < n)
    c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      ++launches;
      blocks_done = 0;
      __threadfence();
    }
  }
}
