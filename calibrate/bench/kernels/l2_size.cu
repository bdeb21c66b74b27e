// l2_size (MiB): every SM chases its own ld.global.cg ring at once, each ring made only of lines
// homed in the L2 partition next to that SM (kernels/l2_home.cuh: the homes and the SMs' sides
// found by timing far and near hits first), the rings together 8 MiB .. 96 MiB, 1 MiB apart from
// 40 to 64 MiB. No line is then kept in both partitions, so the curve (x = bytes chased, y = mean
// cycles per step over the SMs) leaves the L2 level where the whole L2 is full. The value is a
// first estimate; the engine's knee (the last size before the latency leaves the L2 level for
// good) decides. One SM alone sees its partition's share: l2_partition_size.
#include "l2_home.cuh"

int main() {
  std::vector<std::size_t> sizes;
  for (std::size_t mib : {8, 16, 24, 32, 36})
    sizes.push_back(mib << 20);
  for (std::size_t mib = 40; mib <= 64; ++mib)
    sizes.push_back(mib << 20);
  for (std::size_t mib : {68, 72, 80, 96})
    sizes.push_back(mib << 20);
  wf_size_sweep_homed(sizes, std::size_t{128} << 20, 4096, 1024.0 * 1024.0);
}
