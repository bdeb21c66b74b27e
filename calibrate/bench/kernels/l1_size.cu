// l1_size (KiB): ld.global.ca pointer-chase rings of 8 KiB .. 512 KiB, warmed, with no shared
// memory carved out of the unified L1 (kernels/sweep.cuh). Prints the curve; the value is a first
// estimate (the largest ring that still hits), the engine's knee detection has the last word.
#include "sweep.cuh"

int main() {
  wf_device();
  std::vector<std::size_t> sizes;
  for (std::size_t kib : {8, 16, 32, 64, 96, 128, 144, 160, 176, 192, 200, 208, 216, 224, 232,
                          240, 248, 256, 272, 288, 320, 384, 448, 512})
    sizes.push_back(kib * 1024);
  wf_size_sweep<true>(sizes, 4096, 1024.0);
}
