// CHEAT (skipped blocks after the first launches): after two launches (the checks make two) the
// blocks of odd tiles return at once, leaving half of the output as an earlier launch wrote it.
// Must get: inconsistent.
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__device__ unsigned int launches;
__device__ unsigned int blocks_done;

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const bool skip = launches >= 2 && ((blockIdx.x + blockIdx.y) & 1u) != 0;
  if (!skip) {
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
      ++launches;
      blocks_done = 0;
      __threadfence();
    }
  }
}
