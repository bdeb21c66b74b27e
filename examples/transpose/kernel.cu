// out = transpose(in): in is rows x cols (row-major), out is cols x rows (row-major).
// Each block covers a TILE x TILE tile with TILE x BLOCK_ROWS threads; each thread handles
// TILE / BLOCK_ROWS elements (rounded up), stepping BLOCK_ROWS rows at a time.
//
// Tunables (passed as -D by warpforge):
//   USE_SMEM_TILE 0: naive; reads coalesced, writes strided by `rows` (uncoalesced).
//                 1: stage the tile in shared memory, so both reads and writes are coalesced
//                    (method "tiling_smem").
//   TILE          tile edge in elements (the launch's block.x).
//   BLOCK_ROWS    threads in y (the launch's block.y), <= TILE.
//   PAD           1: pad each shared row by one element so that reading a column hits 32
//                 different banks (method "bank_conflict"); only meaningful with USE_SMEM_TILE.
// NVRTC-compilable: no host headers.

#ifndef USE_SMEM_TILE
#define USE_SMEM_TILE 0
#endif
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif
#ifndef PAD
#define PAD 0
#endif

extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int tile_col = static_cast<int>(blockIdx.x) * TILE; // first input column of the tile
  const int tile_row = static_cast<int>(blockIdx.y) * TILE; // first input row of the tile
#if USE_SMEM_TILE
  __shared__ float tile[TILE][TILE + PAD];
  // Load: consecutive threads read consecutive input columns.
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int r = tile_row + j;
    const int c = tile_col + tx;
    if (r < rows && c < cols)
      tile[j][tx] = in[static_cast<size_t>(r) * cols + c];
  }
  __syncthreads();
  // Store: consecutive threads write consecutive output columns (= input rows).
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int out_row = tile_col + j;  // an input column
    const int out_col = tile_row + tx; // an input row
    if (out_row < cols && out_col < rows)
      out[static_cast<size_t>(out_row) * rows + out_col] = tile[tx][j];
  }
#else
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int r = tile_row + j;
    const int c = tile_col + tx;
    if (r < rows && c < cols)
      out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
  }
#endif
}
