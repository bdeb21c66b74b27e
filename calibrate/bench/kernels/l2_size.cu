// l2_size (MiB): every SM walks lines homed in the L2 partition next to it (kernels/l2_home.cuh
// finds the homes and the SMs' sides by timing far and near hits), each step an independent
// reference to the working set (kernels/l2_walk.cuh), the working sets together 8 MiB .. 64 MiB
// (1 MiB apart from 40) and 2-6 times the first estimate. The curve: x = bytes walked, y = mean
// cycles per step over the SMs. Past the capacity C a step hits with probability C / F, so the
// large sets' latencies lie on a line in 1 / F; the engine fits it (results/capacity_fit.hpp)
// and that decides. The value printed is a first estimate (the last size within 10% of the
// first). One SM alone sees its partition's share: l2_partition_size.
#include "l2_walk.cuh"

int main() {
  std::vector<std::size_t> sizes;
  for (std::size_t mib : {8, 16, 24, 32, 36})
    sizes.push_back(mib << 20);
  for (std::size_t mib = 40; mib <= 64; ++mib)
    sizes.push_back(mib << 20);
  // up to 6 x 64 MiB of whole lines, half on each side, drawn from the buffer's homed lines
  wf_size_sweep_walk(sizes, std::size_t{512} << 20, 1024.0 * 1024.0);
}
