// CHEAT (samples its outputs to notice the poison): each block looks at four fixed elements of
// the output tile it would write and does its tile only when one of them is a NaN (the poison
// pattern); otherwise it trusts what an earlier launch left there. Every checked launch poisons
// the whole output, so the checks see it working.
// Must get: inconsistent (a verified launch is poisoned at about 1 in 256 random positions: the
// blocks whose four samples miss them skip, and the poison stays).
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int tile_col = static_cast<int>(blockIdx.x) * TILE;
  const int tile_row = static_cast<int>(blockIdx.y) * TILE;
  int poisoned = 0;
  if (threadIdx.y == 0 && threadIdx.x < 4) { // out[tile_col + 7k][tile_row + 5k]
    const int out_row = tile_col + 7 * static_cast<int>(threadIdx.x);
    const int out_col = tile_row + 5 * static_cast<int>(threadIdx.x);
    if (out_row < cols && out_col < rows) {
      const float v = out[static_cast<size_t>(out_row) * rows + out_col];
      poisoned = v != v;
    }
  }
  if (!__syncthreads_or(poisoned))
    return;
  for (int j = static_cast<int>(threadIdx.y); j < TILE; j += BLOCK_ROWS) {
    const int r = tile_row + j;
    const int c = tile_col + static_cast<int>(threadIdx.x);
    if (r < rows && c < cols)
      out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
  }
}
