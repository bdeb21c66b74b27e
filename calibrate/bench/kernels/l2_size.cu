// l2_size (MiB): every SM chases its own ld.global.cg ring at once, the rings together 4 MiB ..
// 128 MiB, 1 MiB apart from 40 to 60 MiB (kernels/sweep.cuh, wf_size_sweep_every_sm), so both
// halves of a partitioned L2 fill. Prints the curve (x = bytes chased, y = mean cycles per step
// over the SMs); the value is a first estimate, the engine's knee (the last size before the
// latency leaves the L2 level for good) decides. One SM alone sees only its partition's share:
// l2_partition_size.
#include "sweep.cuh"

int main() {
  std::vector<std::size_t> sizes;
  for (std::size_t mib = 4; mib < 40; mib += 4)
    sizes.push_back(mib << 20);
  for (std::size_t mib = 40; mib <= 60; ++mib)
    sizes.push_back(mib << 20);
  for (std::size_t mib : {64, 72, 80, 96, 128})
    sizes.push_back(mib << 20);
  wf_size_sweep_every_sm(sizes, 4096, 1024.0 * 1024.0);
}
