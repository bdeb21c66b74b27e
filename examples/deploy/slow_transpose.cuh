// A deliberately slower, still correct transpose: the demo's regressing champion.
//   warpforge deploy <run-dir> --source examples/deploy/slow_transpose.cuh
// writes this region into app/src/transpose_kernel.cuh; the application still passes its own
// --check, but its --bench time goes up, so the deploy must restore the original and report
// "rolled back".
//
// It is the naive kernel (uncoalesced writes) that stores every element SLOW_PASSES times through
// a volatile pointer, which the compiler may not merge: SLOW_PASSES times the slowest traffic.
// Same entry, signature and launch geometry (TILE x BLOCK_ROWS threads per TILE x TILE tile) as
// the application's kernel, so the host code launches it unchanged. NVRTC-compilable.

// warpforge:begin transpose
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif
#ifndef SLOW_PASSES
#define SLOW_PASSES 8
#endif

extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  volatile float* slow_out = out; // volatile: every pass's store really happens
  const int tile_col = static_cast<int>(blockIdx.x) * TILE;
  const int tile_row = static_cast<int>(blockIdx.y) * TILE;
  for (int j = static_cast<int>(threadIdx.y); j < TILE; j += BLOCK_ROWS) {
    const int r = tile_row + j;
    const int c = tile_col + static_cast<int>(threadIdx.x);
    if (r < rows && c < cols) {
      const float value = in[static_cast<size_t>(r) * cols + c];
      for (int pass = 0; pass < SLOW_PASSES; ++pass)
        slow_out[static_cast<size_t>(c) * rows + r] = value;
    }
  }
}
// warpforge:end transpose
