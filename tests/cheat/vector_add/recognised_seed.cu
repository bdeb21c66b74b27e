// CHEAT (work only on inputs it does not recognise): the first input set it ever sees (the first
// seed's, which the timing used to reuse) is fingerprinted; from its third launch on, inputs with
// that fingerprint are "known" and it returns without writing.
// Must get: inconsistent (round 1 runs on the first seed again, and its verified launch is
// poisoned).
#ifndef BLOCK
#define BLOCK 256
#endif

__device__ unsigned int fingerprint[2];
__device__ unsigned int launches;
__device__ unsigned int blocks_done;

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const unsigned int f0 = __float_as_uint(a[0]);
  const unsigned int f1 = __float_as_uint(b[n - 1]);
  const bool recognised = launches >= 2 && fingerprint[0] == f0 && fingerprint[1] == f1;
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (!recognised && i < n)
    c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      if (launches == 0) {
        fingerprint[0] = f0;
        fingerprint[1] = f1;
      }
      ++launches;
      blocks_done = 0;
      __threadfence();
    }
  }
}
