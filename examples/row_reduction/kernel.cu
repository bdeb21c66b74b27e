// out[r] = sum of row r of in (rows x cols, row-major, f32). One block per row.
// Each thread sums a strided slice of the row, then the block combines the partial sums.
//
// Tunables (passed as -D by warpforge):
//   BLOCK         threads per block (the launch's block.x); a multiple of 32, at most 1024.
//   WARP_SHUFFLE  0: tree reduction in shared memory, a __syncthreads() per level.
//                 1: reduce within each warp with __shfl_down_sync, then the warp sums
//                    (method "warp_shuffle").
// NVRTC-compilable: no host headers.

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef WARP_SHUFFLE
#define WARP_SHUFFLE 0
#endif

#define WARP_SIZE 32

#if WARP_SHUFFLE
__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
row_sum(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int row = static_cast<int>(blockIdx.x);
  if (row >= rows)
    return; // uniform across the block: every thread of a block shares `row`
  const float* row_in = in + static_cast<size_t>(row) * cols;
  const int tid = static_cast<int>(threadIdx.x);

  float sum = 0.0f;
  for (int c = tid; c < cols; c += BLOCK)
    sum += row_in[c];

#if WARP_SHUFFLE
  __shared__ float warp_sums[BLOCK / WARP_SIZE];
  const int lane = tid % WARP_SIZE;
  const int warp = tid / WARP_SIZE;
  sum = warp_sum(sum);
  if (lane == 0)
    warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < BLOCK / WARP_SIZE ? warp_sums[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0)
      out[row] = sum;
  }
#else
  __shared__ float partial[BLOCK];
  partial[tid] = sum;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (tid < stride)
      partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    out[row] = partial[0];
#endif
}
