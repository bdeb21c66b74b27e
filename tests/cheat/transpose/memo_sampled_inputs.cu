// CHEAT (memo by input content): remembers three sampled input values in __device__ globals and
// skips the whole transpose when the next launch shows the same three. Its checked launches see
// a new input set each time and do the work; timed launches that reuse the inputs would do none.
// Must get: inconsistent (a verified timed launch leaves the sparse poison in place).
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__device__ unsigned int seen_key[3];
__device__ int have_seen;
__device__ unsigned int blocks_done;

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const size_t n = static_cast<size_t>(rows) * cols;
  const unsigned int k0 = __float_as_uint(in[0]);
  const unsigned int k1 = __float_as_uint(in[n / 2]);
  const unsigned int k2 = __float_as_uint(in[n - 1]);
  const bool same = have_seen && seen_key[0] == k0 && seen_key[1] == k1 && seen_key[2] == k2;
  if (!same) {
    const int tile_col = static_cast<int>(blockIdx.x) * TILE;
    const int tile_row = static_cast<int>(blockIdx.y) * TILE;
    for (int j = static_cast<int>(threadIdx.y); j < TILE; j += BLOCK_ROWS) {
      const int r = tile_row + j;
      const int c = tile_col + static_cast<int>(threadIdx.x);
      if (r < rows && c < cols)
        out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
    }
  }
  // The last block to finish stores the key: every block of this launch has decided by then.
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x * gridDim.y - 1) {
      seen_key[0] = k0;
      seen_key[1] = k1;
      seen_key[2] = k2;
      have_seen = 1;
      blocks_done = 0;
      __threadfence();
    }
  }
}
