// c = a + b over n floats, one element per thread.
// Tunables (passed as -D by warpforge): BLOCK, threads per block (the launch's block.x).
// NVRTC-compilable: no host headers.

#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (i < n)
    c[i] = a[i] + b[i];
}
