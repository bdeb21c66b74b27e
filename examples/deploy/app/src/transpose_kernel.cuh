#pragma once
// The application's one kernel: out = transpose(in), in rows x cols (row-major), out cols x rows.
//
// This file is two things at once:
//  - a header of the application (src/transpose_launch.cu includes it, nvcc compiles it), and
//  - the kernel source of examples/deploy/problem.toml, which warpforge compiles with NVRTC.
// So the kernel region is self-contained CUDA (no includes), and the host helper below it is
// hidden from NVRTC.
//
// `warpforge deploy` replaces only the lines between the two marker comments: the champion's
// tunable values arrive as `#define NAME value` lines at the top of the region, which is why
// every tunable below is an #ifndef default. The launch helper sits AFTER the region so that it
// sees the values the deployed kernel was built with: host and device never disagree on TILE.

// warpforge:begin transpose
// Tunables (same names and meaning as examples/transpose/kernel.cu):
//   USE_SMEM_TILE 0: naive; reads coalesced, writes strided by `rows` (uncoalesced).
//                 1: stage a TILE x TILE tile in shared memory so reads and writes are coalesced.
//   TILE          tile edge in elements (the launch's block.x).
//   BLOCK_ROWS    threads in y (the launch's block.y), <= TILE.
//   PAD           1: pad each shared row by one element (no bank conflicts); only with the tile.
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
  for (int j = ty; j < TILE; j += BLOCK_ROWS) { // load: consecutive threads, consecutive columns
    const int r = tile_row + j;
    const int c = tile_col + tx;
    if (r < rows && c < cols)
      tile[j][tx] = in[static_cast<size_t>(r) * cols + c];
  }
  __syncthreads();
  for (int j = ty; j < TILE; j += BLOCK_ROWS) { // store: consecutive threads, consecutive rows
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
// warpforge:end transpose

#ifndef __CUDACC_RTC__
// The launch geometry the host uses, from the same macros as the kernel; identical to the
// problem's [launch] expressions: grid (ceil(cols / TILE), ceil(rows / TILE)), block (TILE, BLOCK_ROWS).
struct transpose_geometry {
  dim3 grid;
  dim3 block;
};

inline transpose_geometry transpose_launch_geometry(int rows, int cols) {
  const unsigned tile = TILE;
  return transpose_geometry{dim3((static_cast<unsigned>(cols) + tile - 1) / tile,
                                 (static_cast<unsigned>(rows) + tile - 1) / tile, 1),
                            dim3(TILE, BLOCK_ROWS, 1)};
}
#endif
