#pragma once
// Shared by the compiler tests: a scratch directory, and small kernels.

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace warpforge::gpu::test {

/// A scratch directory removed at the end of the test.
struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "wf-compile-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
};

/// `c[i] = a[i] * SCALE` with a tunable block size.
inline constexpr const char* scale_kernel = R"(#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef SCALE
#define SCALE 2.0f
#endif
extern "C" __global__ void __launch_bounds__(BLOCK) scale(const float* a, float* c, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    c[i] = a[i] * SCALE;
}
)";

} // namespace warpforge::gpu::test
