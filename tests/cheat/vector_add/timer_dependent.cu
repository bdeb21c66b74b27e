// CHEAT (timer-dependent work): reads %globaltimer and does the work only when more than 100 us
// passed since its previous launch ended: checked launches come alone, timed ones back to back.
// Must get: sass_rejected (the PTX/SASS check refuses timer reads); the runner alone catches it
// as inconsistent (a verified launch follows its predecessor by far less than 100 us).
#ifndef BLOCK
#define BLOCK 256
#endif

__device__ unsigned long long last_end_ns;
__device__ unsigned int blocks_done;

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const unsigned long long now = global_ns();
  const bool alone = last_end_ns == 0 || now - last_end_ns > 100000ull;
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (alone && i < n)
    c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      last_end_ns = global_ns();
      blocks_done = 0;
      __threadfence();
    }
  }
}
