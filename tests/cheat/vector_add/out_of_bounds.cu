// CHEAT (writes outside its buffers): the addition is right, but the last block also writes 256
// floats past the end of c, into whatever the device put there (a cached input, a reference's
// output: state a later launch or check could read).
// Must get: runtime_error under --sanitize (compute-sanitizer memcheck: an invalid global write);
// without it the write may land anywhere, unseen.
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (i < n)
    c[i] = a[i] + b[i];
  if (blockIdx.x == gridDim.x - 1)
    c[static_cast<size_t>(n) + threadIdx.x] = 1.0f;
}
