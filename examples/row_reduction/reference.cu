// Reference row sums: one thread per row, accumulated in double, rounded once to float.
// NVRTC-compilable: no host headers.

extern "C" __global__ void row_sum_reference(const float* __restrict__ in, float* __restrict__ out,
                                             int rows, int cols) {
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= rows)
    return;
  const float* row_in = in + static_cast<size_t>(row) * cols;
  double sum = 0.0;
  for (int c = 0; c < cols; ++c)
    sum += row_in[c];
  out[row] = static_cast<float>(sum);
}
