// C = A x B (row-major f32; A is m x k, B is k x n, C is m x n). The naive kernel: one thread per
// element of C, reading a row of A and a column of B straight from global memory.
//
// Tunables (passed as -D by warpforge):
//   BLOCK_X, BLOCK_Y  the block's shape (the launch's block.x and block.y): threads along n and m.
// NVRTC-compilable: no host headers.

#ifndef BLOCK_X
#define BLOCK_X 16
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 16
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
sgemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
  const int col = static_cast<int>(blockIdx.x * BLOCK_X + threadIdx.x);
  const int row = static_cast<int>(blockIdx.y * BLOCK_Y + threadIdx.y);
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i)
    sum += a[static_cast<size_t>(row) * k + i] * b[static_cast<size_t>(i) * n + col];
  c[static_cast<size_t>(row) * n + col] = sum;
}
