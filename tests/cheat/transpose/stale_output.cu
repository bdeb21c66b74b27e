// CHEAT (stale output): remembers four of the output elements it wrote; when they still hold
// those values at the next launch it assumes nobody touched the output and returns, leaving
// what an earlier launch wrote. A fully poisoned output (every checked launch) makes it work.
// Must get: inconsistent (the verified launch's poison lies at random positions, not its four).
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__device__ unsigned int remembered[4];
__device__ int have_written;
__device__ unsigned int blocks_done;

__device__ size_t watched(int k, size_t n) { return k == 0 ? 0 : k == 1 ? n / 3 : k == 2 ? n / 2 : n - 1; }

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const size_t n = static_cast<size_t>(rows) * cols;
  bool untouched = have_written != 0;
  for (int k = 0; k < 4 && untouched; ++k)
    untouched = __float_as_uint(out[watched(k, n)]) == remembered[k];
  __syncthreads(); // every thread has looked before any thread of this block writes
  if (!untouched) {
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
      for (int k = 0; k < 4; ++k) // what the transpose puts there
        remembered[k] = __float_as_uint(in[(watched(k, n) % rows) * cols + watched(k, n) / rows]);
      have_written = 1;
      blocks_done = 0;
      __threadfence();
    }
  }
}
