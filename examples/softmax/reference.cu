// Reference softmax: one thread per row, max, exponentials and sum in double, each value rounded
// once to float. NVRTC-compilable: no host headers.

extern "C" __global__ void softmax_reference(const float* __restrict__ in, float* __restrict__ out, int rows,
                                             int cols) {
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= rows)
    return;
  const float* row_in = in + static_cast<size_t>(row) * cols;
  float* row_out = out + static_cast<size_t>(row) * cols;
  double largest = row_in[0];
  for (int c = 1; c < cols; ++c)
    largest = row_in[c] > largest ? row_in[c] : largest;
  double sum = 0.0;
  for (int c = 0; c < cols; ++c)
    sum += exp(static_cast<double>(row_in[c]) - largest);
  for (int c = 0; c < cols; ++c)
    row_out[c] = static_cast<float>(exp(static_cast<double>(row_in[c]) - largest) / sum);
}
