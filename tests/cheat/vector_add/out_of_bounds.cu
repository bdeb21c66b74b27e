// CHEAT (writes outside its buffers): the addition is right (and, with 16-byte loads, a little
// faster than the baseline, so it is the kernel a race would crown), but the last block also
// writes 256 floats past the end of c, into whatever the device put there (a cached input, a
// reference's output: state a later launch or check could read).
// Must get: incorrect. Where the write lands in a neighbouring working buffer (on an H100 it hits
// input 'b') the runner's input check sees it; elsewhere --sanitize does (compute-sanitizer
// memcheck replays the fastest passing kernel: an invalid global write).
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  const int quads = n / 4;
  if (i < quads) {
    const float4 x = reinterpret_cast<const float4*>(a)[i];
    const float4 y = reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else if (i < quads + (n & 3)) {
    const int k = quads * 4 + (i - quads);
    c[k] = a[k] + b[k];
  }
  if (blockIdx.x == gridDim.x - 1)
    c[static_cast<size_t>(n) + threadIdx.x] = 1.0f;
}
