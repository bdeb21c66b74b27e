// CHEAT (a persistent kernel meant to outlive its stop event): the last block of the first
// launch stays resident and spins on a __device__ flag, to do later launches' work for them
// after they return (each later launch would only raise the flag). On one stream it cannot
// outlive anything: the launch that holds the spinning block never ends, so nothing queued after
// it (its stop event, the comparison) ever runs.
// Must get: timeout (the runner's kernel watchdog; the runner exits and a fresh one goes on).
#ifndef BLOCK
#define BLOCK 256
#endif

__device__ volatile int work_wanted;
__device__ volatile int server_started;
__device__ unsigned int blocks_done;

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ int serve;
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (!server_started && i < n)
    c[i] = a[i] + b[i];
  if (threadIdx.x == 0) {
    __threadfence();
    serve = atomicAdd(&blocks_done, 1u) == gridDim.x - 1 && !server_started;
    if (serve)
      server_started = 1;
    if (server_started && !serve)
      work_wanted = 1;
  }
  __syncthreads();
  if (!serve)
    return;
  for (;;) { // the server: never returns
    while (!work_wanted) {
    }
    for (int k = static_cast<int>(threadIdx.x); k < n; k += BLOCK)
      c[k] = a[k] + b[k];
    __syncthreads();
    if (threadIdx.x == 0)
      work_wanted = 0;
    __syncthreads();
  }
}
