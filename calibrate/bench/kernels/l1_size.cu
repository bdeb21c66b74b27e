// l1_size (KiB): one SM's warp walks whole 128-byte lines through its L1 (a plain ld.global, no
// shared memory carved out of the unified L1), each step an independent reference (kernels/walk.cuh),
// over working sets of 8 KiB .. 1.5 MiB (8 KiB apart from 192 to 256), every size drawn from the
// same 1.5 MiB so it spans the same pages. No multiples of the first estimate: the L1's starts
// rising at 96 KiB on an H100, far short of its capacity, so the large sizes are listed. Past the capacity C
// a step hits with probability C / F; the engine fits that line (results/capacity_fit.hpp) and
// that decides. The value printed is a first estimate (the last size within 10% of the first).
#include "walk.cuh"

// One block on one SM: every warp loads the working set's lines (the L1 then holds only the set;
// the list itself is read past L1), then warp 0 walks from `start` (wf_timed_walk), `rounds` times
// over, so one warp's walk has as many timed steps as the L2's walkers together have in a handful.
__global__ void wf_walk_one_sm(const unsigned* words, const unsigned* lines, unsigned count, unsigned start,
                               unsigned seed, int rounds, unsigned* sink, wf_window* window) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  unsigned seen = 0;
  for (unsigned i = warp; i < count; i += warps)
    seen ^= wf_walk_load<true>(words, __ldcg(lines + i), lane);
  __syncthreads();
  if (warp == 0) {
    wf_window total{0, 0};
    unsigned line = start;
    for (int round = 0; round < rounds; ++round) {
      const wf_window timed = wf_timed_walk<true>(words, line, seed + 0x9E3779B9u * round, lane, line);
      total.cycles += timed.cycles;
      total.ns += timed.ns;
    }
    seen ^= line;
    if (lane == 0)
      *window = total;
  }
  sink[threadIdx.x] = seen;
}

int main() {
  wf_device();
  // One warp walks where every SM's warp does for l2_size: 8 rounds for a like spread.
  const int rounds = 8;
  const std::size_t span = std::size_t{1536} * 1024; // the largest working set
  wf_buffer<unsigned> words(span / sizeof(unsigned));
  std::vector<unsigned> all(span / wf_line_bytes);
  std::iota(all.begin(), all.end(), 0u);
  std::mt19937 random(wf_ring_seed());
  // L1 benchmarks want all of the unified L1/shared storage as L1: carve out no shared memory.
  WF_CHECK(cudaFuncSetAttribute(wf_walk_one_sm, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  wf_buffer<unsigned> sink(1024);
  wf_buffer<wf_window> window(1);
  std::vector<std::size_t> sizes;
  for (std::size_t kib : {8, 16, 32, 64, 96, 128, 144, 160, 176, 192, 200, 208, 216, 224, 232,
                          240, 248, 256, 272, 288, 320, 384, 448, 512, 576, 640, 768, 1024, 1280, 1536})
    sizes.push_back(kib * 1024);
  wf_walk_sweep(sizes, {}, 1024.0, 1024, [&](std::size_t bytes) {
    const std::vector<unsigned> drawn = wf_draw_lines(all, bytes / wf_line_bytes, random);
    wf_link_lines(words.data, drawn, random);
    const auto d_lines = wf_upload(drawn);
    const unsigned start = drawn[std::uniform_int_distribution<std::size_t>(0, drawn.size() - 1)(random)];
    wf_walk_one_sm<<<1, 1024>>>(words.data, d_lines->data, static_cast<unsigned>(drawn.size()), start,
                                static_cast<unsigned>(random()), rounds, sink.data, window.data);
    wf_sync_kernel("the one-SM walk");
    wf_walk_point point;
    point.bytes = static_cast<double>(drawn.size() * wf_line_bytes);
    point.windows = window.to_host();
    if (point.windows[0].cycles <= 0)
      wf_fail("the walk measured no cycles");
    point.cycles_per_step = static_cast<double>(point.windows[0].cycles) / (rounds * wf_walk_steps);
    return point;
  });
}
