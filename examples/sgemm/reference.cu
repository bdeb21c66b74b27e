// Reference C = A x B: one thread per element, the dot product accumulated in double and rounded
// once to float. NVRTC-compilable: no host headers.

extern "C" __global__ void sgemm_reference(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int m, int n, int k) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (row >= m || col >= n)
    return;
  double sum = 0.0;
  for (int i = 0; i < k; ++i)
    sum += static_cast<double>(a[static_cast<size_t>(row) * k + i]) * b[static_cast<size_t>(i) * n + col];
  c[static_cast<size_t>(row) * n + col] = static_cast<float>(sum);
}
