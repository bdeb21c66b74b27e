// Reference transpose: one element per thread, no tricks. out[c][r] = in[r][c].
// NVRTC-compilable: no host headers.

extern "C" __global__ void transpose_reference(const float* __restrict__ in, float* __restrict__ out,
                                               int rows, int cols) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int r = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (r < rows && c < cols)
    out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
}
