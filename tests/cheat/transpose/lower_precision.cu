// CHEAT (lower precision): moves the values through f16 (half the bytes an f32 transpose would
// move if it stored halves; here the rounding shows what narrowing does to an f32 problem).
// Must get: incorrect, from the PTX/SASS precision check (f16 conversions on an f32 problem, whose
// allow_lower_precision is false by default) before it is launched; the runner alone finds it
// incorrect too (the transpose's tolerance is exact).
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

// Through f16 and back (what __float2half / __half2float compile to; no header needed).
__device__ float through_half(float x) {
  unsigned short h;
  float y;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  asm("cvt.f32.f16 %0, %1;" : "=f"(y) : "h"(h));
  return y;
}

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int tile_col = static_cast<int>(blockIdx.x) * TILE;
  const int tile_row = static_cast<int>(blockIdx.y) * TILE;
  for (int j = static_cast<int>(threadIdx.y); j < TILE; j += BLOCK_ROWS) {
    const int r = tile_row + j;
    const int c = tile_col + static_cast<int>(threadIdx.x);
    if (r < rows && c < cols)
      out[static_cast<size_t>(c) * rows + r] = through_half(in[static_cast<size_t>(r) * cols + c]);
  }
}
