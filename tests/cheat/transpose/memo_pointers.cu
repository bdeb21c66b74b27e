// CHEAT (memo by pointer): keyed by the input and output pointers. After two launches on the same
// buffers (as many as the checks make) it assumes the output is already there and returns.
// Must get: inconsistent (its module is loaded afresh for timing, and the timed launch it skips
// is verified).
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__device__ const float* seen_in;
__device__ float* seen_out;
__device__ unsigned int launches_on_them;
__device__ unsigned int blocks_done;

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const bool known = seen_in == in && seen_out == out && launches_on_them >= 2;
  if (!known) {
    const int tile_col = static_cast<int>(blockIdx.x) * TILE;
    const int tile_row = static_cast<int>(blockIdx.y) * TILE;
    for (int j = static_cast<int>(threadIdx.y); j < TILE; j += BLOCK_ROWS) {
      const int r = tile_row + j;
      const int c = tile_col + static_cast<int>(threadIdx.x);
      if (r < rows && c < cols)
        out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
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
