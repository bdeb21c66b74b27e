// CHEAT (dynamic parallelism): the kernel the race times only launches a child grid on a
// fire-and-forget stream and returns; the child does the addition, on a stream the race's
// events do not bracket. Needs relocatable device code (-rdc=true) and the device runtime.
// Must get: sass_rejected (the PTX/SASS check refuses device-side launches) or compile_error
// (a candidate build without -rdc=true cannot launch from the device): never timed either way.
#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void add_child(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    add_child<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, cudaStreamFireAndForget>>>(a, b, c, n);
}
