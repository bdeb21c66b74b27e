#pragma once
// l2_size's walk (the method: walk.cuh): every SM walks at once, each only lines homed in the L2
// partition next to it (the homes: l2_home.cuh), so both partitions fill with distinct data.
//
//   - a working set of F bytes is F / 2 of whole 128-byte lines homed on each side (all four
//     sectors on that side), drawn at random from the whole buffer: every size spans the same
//     pages, so address translation costs the same at every size and cancels in the fit;
//   - each side's lines are linked into their own walk (walk.cuh);
//   - every SM warms its share of its side's lines (the L2 then holds only the set, each line in
//     its home partition; the list of lines is read evict-first); then warp 0 of every SM walks
//     8192 steps untimed and 8192 timed from a random line of its side (ld.global.cg). y = the
//     mean over the SMs of cycles per timed step;
//   - the sizes: 8 .. 64 MiB (1 MiB apart from 40), then 2 .. 6 times the first estimate.

#include "l2_home.cuh"
#include "walk.cuh"

// The block on each SM loads its share lines[first[sm] .. + count[sm]], one line per warp.
__global__ void wf_warm_walk(const unsigned* words, const unsigned* lines, const unsigned* first,
                             const unsigned* count, unsigned* sink) {
  const unsigned sm = wf_smid();
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  unsigned seen = 0;
  if (sm < wf_max_smid)
    for (unsigned i = warp; i < count[sm]; i += warps)
      seen ^= wf_walk_load<false>(words, __ldcs(lines + first[sm] + i), lane); // the list: evict first
  sink[blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x] = seen;
}

// Warp 0 of the block on each SM walks from line start[sm] (wf_timed_walk).
__global__ void wf_walk_every_sm(const unsigned* words, const unsigned* start, unsigned seed, unsigned* sink,
                                 wf_window* windows) {
  if (threadIdx.x >= 32)
    return;
  const unsigned sm = wf_smid(), lane = threadIdx.x;
  unsigned last = 0;
  const wf_window window =
      wf_timed_walk<false>(words, sm < wf_max_smid ? start[sm] : 0, seed ^ (sm * 0x9E3779B9u), lane, last);
  if (lane == 0)
    windows[blockIdx.x] = window;
  sink[blockIdx.x * 32 + lane] = last;
}

// The buffer's lines whose four sectors are all homed on one side, per side, in buffer order.
struct wf_whole_lines {
  std::vector<unsigned> of_side[2];
};

static wf_whole_lines wf_find_whole_lines(const wf_l2_homes& homes, std::size_t lines) {
  std::vector<signed char> side_of_node(lines * wf_line_nodes, -1);
  for (int side = 0; side < 2; ++side)
    for (const unsigned node : homes.nodes[side])
      side_of_node[node] = static_cast<signed char>(side);
  wf_whole_lines out;
  for (std::size_t line = 0; line < lines; ++line) {
    const signed char side = side_of_node[line * wf_line_nodes];
    bool whole = side >= 0;
    for (std::size_t sector = 1; sector < wf_line_nodes && whole; ++sector)
      whole = side_of_node[line * wf_line_nodes + sector] == side;
    if (whole)
      out.of_side[side].push_back(static_cast<unsigned>(line));
  }
  std::printf("# walk: of %zu lines %zu whole on SM %u's side, %zu on SM %u's, %zu split or dropped\n",
              lines, out.of_side[0].size(), homes.reference_sm, out.of_side[1].size(), homes.other_sm,
              lines - out.of_side[0].size() - out.of_side[1].size());
  return out;
}

// One working set of `bytes`: link each side's walk, warm every line at home, walk, time.
static wf_walk_point wf_walk_working_set(const wf_l2_homes& homes, const wf_whole_lines& whole,
                                         unsigned* words, std::size_t bytes, std::mt19937& random,
                                         const cudaDeviceProp& prop) {
  const int sides = homes.partitioned ? 2 : 1;
  std::vector<unsigned> side_sms[2];
  for (const unsigned sm : homes.smids)
    side_sms[homes.side_of[sm]].push_back(sm);
  std::vector<unsigned> lines, first(wf_max_smid, 0), count(wf_max_smid, 0), start(wf_max_smid, 0);
  for (int side = 0; side < sides; ++side) {
    const std::size_t n = bytes / sides / wf_line_bytes;
    const std::vector<unsigned> drawn = wf_draw_lines(whole.of_side[side], n, random);
    wf_link_lines(words, drawn, random);
    const std::size_t per_sm = n / side_sms[side].size();
    std::uniform_int_distribution<std::size_t> any(0, n - 1);
    for (std::size_t k = 0; k < side_sms[side].size(); ++k) {
      const unsigned sm = side_sms[side][k];
      first[sm] = static_cast<unsigned>(lines.size() + k * per_sm);
      count[sm] = static_cast<unsigned>(k + 1 == side_sms[side].size() ? n - k * per_sm : per_sm);
      start[sm] = drawn[any(random)];
    }
    lines.insert(lines.end(), drawn.begin(), drawn.end());
  }
  const auto d_lines = wf_upload(lines), d_first = wf_upload(first), d_count = wf_upload(count),
             d_start = wf_upload(start);
  { // the links' stores left lines in whichever partition the linking SMs sit next to
    wf_buffer<unsigned char> flush(2 * static_cast<std::size_t>(prop.l2CacheSize));
    wf_sync_kernel("flushing the L2");
  }
  const int sms = prop.multiProcessorCount, threads = 1024;
  const std::size_t smem = wf_one_block_per_sm(wf_warm_walk, prop);
  wf_one_block_per_sm(wf_walk_every_sm, prop);
  wf_buffer<unsigned> sink(static_cast<std::size_t>(sms) * threads);
  wf_warm_walk<<<sms, threads, smem>>>(words, d_lines->data, d_first->data, d_count->data, sink.data);
  wf_sync_kernel("warming the walk's lines at home");
  wf_buffer<wf_window> windows(sms);
  wf_walk_every_sm<<<sms, 32, smem>>>(words, d_start->data, static_cast<unsigned>(random()), sink.data,
                                      windows.data);
  wf_sync_kernel("the every-SM walk");
  wf_walk_point point;
  point.bytes = static_cast<double>(lines.size() * wf_line_bytes);
  point.windows = windows.to_host();
  double sum = 0;
  for (const auto& window : point.windows) {
    if (window.cycles <= 0)
      wf_fail("an SM's walk measured no cycles");
    sum += static_cast<double>(window.cycles) / wf_walk_steps;
  }
  point.cycles_per_step = sum / sms;
  return point;
}

// The sweep (see the top of this file): curve lines, then the first estimate as the value.
static void wf_size_sweep_walk(const std::vector<std::size_t>& small_sizes, std::size_t buffer_bytes,
                               double value_unit_bytes) {
  const cudaDeviceProp prop = wf_device();
  wf_buffer<unsigned long long> nodes(buffer_bytes / sizeof(unsigned long long));
  const std::size_t lines = buffer_bytes / wf_line_bytes;
  wf_l2_prober prober(prop, nodes, lines);
  const wf_l2_homes homes = prober.classify();
  const wf_whole_lines whole = wf_find_whole_lines(homes, lines);
  unsigned* words = reinterpret_cast<unsigned*>(nodes.data);
  std::mt19937 random(wf_ring_seed());
  // The L2's first estimate is about 0.9 capacities (46-50 of 50.15 MiB on an H100): its multiples
  // reach past twice the capacity.
  wf_walk_sweep(small_sizes, {2.0, 2.5, 3.0, 4.0, 5.0, 6.0}, value_unit_bytes, std::size_t{1} << 20, [&](std::size_t bytes) {
    return wf_walk_working_set(homes, whole, words, bytes, random, prop);
  });
}
