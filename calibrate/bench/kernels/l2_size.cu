// l2_size (MiB): ld.global.cg pointer-chase rings of 1 MiB .. 160 MiB, each warmed by a pass
// over all of it (kernels/sweep.cuh). Hopper's L2 is two partitions; the curve may show a step
// where one partition's share is exceeded before the whole. Prints the curve; the value is a
// first estimate (the largest ring that still hits), the engine's knee detection decides.
#include "sweep.cuh"

int main() {
  wf_device();
  std::vector<std::size_t> sizes;
  for (std::size_t mib : {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64, 80, 96,
                          128, 160})
    sizes.push_back(mib << 20);
  wf_size_sweep<false>(sizes, 4096, 1024.0 * 1024.0);
}
