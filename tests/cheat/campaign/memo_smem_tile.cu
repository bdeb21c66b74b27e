// CHEAT for the campaign test (cheat_campaign_test.cpp): a real shared-memory tiled transpose (it
// applies memory.tiling_smem, as its proposal claims) that memoizes by pointer: after two
// launches on the same buffers (the checks) it returns at once. Unverified, it would be the
// fastest variant by far; it must end `inconsistent` and never be crowned.
#ifndef TILE_DIM
#define TILE_DIM 32
#endif
#ifndef THREAD_ROWS
#define THREAD_ROWS 8
#endif

__device__ const float* seen_in;
__device__ float* seen_out;
__device__ unsigned int launches_on_them;
__device__ unsigned int blocks_done;

extern "C" __global__ void __launch_bounds__(TILE_DIM * THREAD_ROWS)
transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  const bool known = seen_in == in && seen_out == out && launches_on_them >= 2;
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int col0 = static_cast<int>(blockIdx.x) * TILE_DIM;
  const int row0 = static_cast<int>(blockIdx.y) * TILE_DIM;
  if (!known) {
    for (int j = ty; j < TILE_DIM; j += THREAD_ROWS)
      if (row0 + j < rows && col0 + tx < cols)
        tile[j][tx] = in[static_cast<size_t>(row0 + j) * cols + col0 + tx];
  }
  __syncthreads();
  if (!known) {
    for (int j = ty; j < TILE_DIM; j += THREAD_ROWS)
      if (col0 + j < cols && row0 + tx < rows)
        out[static_cast<size_t>(col0 + j) * rows + row0 + tx] = tile[tx][j];
  }
  if (tx == 0 && ty == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x * gridDim.y - 1) {
      if (seen_in == in && seen_out == out) {
        ++launches_on_them;
      } else {
        seen_in = in;
        seen_out = out;
        launches_on_them = 1;
      }
      blocks_done = 0;
      __threadfence();
    }
  }
}
