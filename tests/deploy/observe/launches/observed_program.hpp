#pragma once
// What observed_program.cu launches, shared with the test that checks the launch log
// (inject_gpu_test.cpp), so the expectations are written once.
//
// (a) scale<float>(float* data, int n, float factor): C++ templated, launched with <<<>>> (the
//     CUDA runtime), `scale_repeats` times at each geometry below, in order.
// (b) add_offset(long long* data, int n, long long offset): extern "C", launched through the
//     driver API's cuLaunchKernel, `driver_repeats` times, before (a).

namespace observed_program {

struct scale_geometry {
  unsigned grid[3];
  unsigned block[3];
  unsigned dynamic_smem; // bytes
  int n;                 // the int scalar: elements
  float factor;          // the float scalar
};

inline constexpr scale_geometry scale_geometries[3] = {
    {{4, 1, 1}, {128, 1, 1}, 0, 512, 1.5f},
    {{16, 1, 1}, {256, 1, 1}, 0, 4096, -2.25f},
    {{8, 2, 1}, {32, 4, 1}, 512, 2048, 0.5f},
};
inline constexpr int scale_repeats = 3;

inline constexpr unsigned driver_grid = 2;
inline constexpr unsigned driver_block = 64;
inline constexpr unsigned driver_dynamic_smem = 256; // bytes
inline constexpr int driver_n = 128;
inline constexpr long long driver_offset = -5'000'000'000LL;
inline constexpr int driver_repeats = 2;

/// The program's exit code when there is no usable GPU (the test then skips).
inline constexpr int no_gpu_exit_code = 77;

} // namespace observed_program
