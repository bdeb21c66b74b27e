// l2_partition_size (MiB): one thread chases ld.global.cg rings of 4 MiB .. 128 MiB, 1 MiB apart
// from 16 to 40 MiB, each warmed by a pass over all of it (kernels/sweep.cuh, wf_size_sweep).
// On a partitioned L2 (Hopper, Ampere) one SM's data is kept in the partition near it, so its
// chase leaves the L2 level at that partition's share, well before the whole L2 (l2_size, every
// SM at once). Prints the curve; the engine's knee decides.
#include "sweep.cuh"

int main() {
  wf_device();
  std::vector<std::size_t> sizes;
  for (std::size_t mib : {4, 8, 12})
    sizes.push_back(mib << 20);
  for (std::size_t mib = 16; mib <= 40; ++mib)
    sizes.push_back(mib << 20);
  for (std::size_t mib : {44, 48, 52, 56, 64, 80, 96, 128})
    sizes.push_back(mib << 20);
  wf_size_sweep<false>(sizes, 4096, 1024.0 * 1024.0);
}
