// CHEAT (memo by launch count): counts its launches in a __device__ global and does the work
// only in the first two (as many as the checks make); later launches return at once.
// Must get: inconsistent (its module is loaded afresh for timing, so the count starts again, and
// the timed launches after the second are verified).
#ifndef BLOCK
#define BLOCK 256
#endif

__device__ unsigned int launches;
__device__ unsigned int blocks_done;

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (launches < 2 && i < n)
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
