#pragma once
// l2_size's probe: random walks over the working set whose every step is, to the L2, an
// independent reference, so past the capacity the hit rate is the capacity over the working set,
// whatever the L2's set mapping and replacement.
//
// Why not a ring: a chase round a ring reuses each line only after the whole working set. A
// hashed, set-associative L2 then misses in its fullest sets long before it is full, and by how
// much depends on its ways and its replacement. On an H100 a homed ring's latency leaves the L2
// level at 42 of 50 MiB and the rise is 38 MiB wide: the capacity cannot be read off that curve
// without a model of the sets.
//
// A walk that takes its next line uniformly from the working set, independently of the lines
// it saw, hits with probability (lines of the set held) / (lines of the set). Once the set is
// about twice the L2, every set of the L2 is full of the set's lines, so with F the set's bytes
// and C the capacity:
//     hit rate = C / F,   cycles per step = L_miss - (L_miss - L_hit) x C / F,
// a straight line in 1 / F, whatever the placement and replacement. The engine fits that line
// over the sweep's largest working sets (calibrate/results/capacity_fit.hpp) and reads C from
// its slope, its intercept (L_miss) and the level of the small sets (L_hit).
//
// How, after the homes (l2_home.cuh):
//   - a working set of F bytes is F / 2 of whole 128-byte lines homed on each side (all four
//     sectors on that side), drawn at random from the whole buffer: every size spans the same
//     pages, so address translation costs the same at every size and cancels in the fit;
//   - each side's lines in a random order p; line p holds in its 32 words the lines
//     p + o_k (mod n) for 32 random distinct offsets o_k: every line has 32 ways in and 32 out,
//     so a walk visits all lines equally often, and the next line is unrelated to the last ones
//     (a revisit needs offsets that sum to 0 mod n);
//   - every SM warms its share of its side's lines (the L2 then holds only the set, each line in
//     its home partition); then warp 0 of every SM walks 8192 steps from a random line of its
//     side: the 32 lanes load the line (one 128-byte request, ld.global.cg, so the whole line is
//     filled), and the warp takes the word a per-warp xorshift picks (SHFL.IDX) as the next line.
//     y = one clock64 window / steps, the mean over the SMs; the shuffle and the address
//     arithmetic are in it at every size (they add the same cycles to hits and misses);
//   - the sizes: 8 .. 64 MiB (1 MiB apart from 40), then 2, 2.5, 3, 4, 5 and 6 times the
//     program's first estimate (the last size within 10% of the first), where the fit reads (on
//     an H100 the bytes held still grow up to about 2.5 capacities: 46.9 MiB at 64, 48.5 at
//     90, 49.3 at 180).
//     The value printed is that first estimate; the engine's fit decides.

#include "l2_home.cuh"
#include "sweep.cuh" // wf_hit_tolerance: the first estimate's rule, as the other sweeps'

constexpr unsigned wf_line_words = wf_line_bytes / sizeof(unsigned); // 32: one per lane
constexpr std::size_t wf_walk_steps = 8192;

// Lane `lane` loads word `lane` of line `line`: the warp's 32 loads are one 128-byte request.
__device__ __forceinline__ unsigned wf_walk_load(const unsigned* words, unsigned line, unsigned lane) {
  unsigned word;
  const unsigned* address = words + static_cast<std::size_t>(line) * wf_line_words + lane;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(word) : "l"(address));
  return word;
}

// Line order[p] gets the lines order[(p + offsets[k]) mod n] in its words k < 32 (one side).
__global__ void wf_link_walk(unsigned* words, const unsigned* order, std::size_t n, const unsigned* offsets) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n * wf_line_words)
    return;
  const std::size_t p = i / wf_line_words;
  const unsigned k = static_cast<unsigned>(i % wf_line_words);
  words[static_cast<std::size_t>(order[p]) * wf_line_words + k] = order[(p + offsets[k]) % n];
}

// The block on each SM loads its share lines[first[sm] .. + count[sm]], one line per warp.
__global__ void wf_warm_walk(const unsigned* words, const unsigned* lines, const unsigned* first,
                             const unsigned* count, unsigned* sink) {
  const unsigned sm = wf_smid();
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  unsigned seen = 0;
  if (sm < wf_max_smid)
    for (unsigned i = warp; i < count[sm]; i += warps)
      seen ^= wf_walk_load(words, lines[first[sm] + i], lane);
  sink[blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x] = seen;
}

// Warp 0 of the block on each SM walks `steps` steps from line start[sm], in one clock64 window.
__global__ void wf_walk(const unsigned* words, const unsigned* start, unsigned seed, int steps,
                        unsigned* sink, wf_window* windows) {
  if (threadIdx.x >= 32)
    return;
  const unsigned sm = wf_smid(), lane = threadIdx.x;
  unsigned line = sm < wf_max_smid ? start[sm] : 0;
  unsigned pick = (seed ^ (sm * 0x9E3779B9u)) | 1u; // xorshift32: never 0 once not 0
  const wf_window_start opened = wf_open_window();
#pragma unroll 16
  for (int s = 0; s < steps; ++s) {
    const unsigned word = wf_walk_load(words, line, lane);
    pick ^= pick << 13;
    pick ^= pick >> 17;
    pick ^= pick << 5;
    line = __shfl_sync(0xffffffffu, word, pick % 32);
  }
  const wf_window window = wf_close_window(opened);
  if (lane == 0)
    windows[blockIdx.x] = window;
  sink[blockIdx.x * 32 + lane] = line;
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

static std::unique_ptr<wf_buffer<unsigned>> wf_upload(const std::vector<unsigned>& host) {
  auto device = std::make_unique<wf_buffer<unsigned>>(host.size());
  WF_CHECK(cudaMemcpy(device->data, host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  return device;
}

struct wf_walk_point {
  double bytes = 0;           // the working set: lines x 128 bytes
  double cycles_per_step = 0; // the mean over the SMs
  std::vector<wf_window> windows;
};

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
    std::vector<unsigned> drawn = whole.of_side[side];
    if (n < 2 * wf_line_words || n > drawn.size())
      wf_fail("the walk needs more whole lines of one side than the buffer holds");
    for (std::size_t i = 0; i < n; ++i) // the first n of a Fisher-Yates shuffle: a random draw
      std::swap(drawn[i], drawn[i + std::uniform_int_distribution<std::size_t>(0, drawn.size() - 1 - i)(random)]);
    drawn.resize(n);
    std::vector<unsigned> offsets;
    std::uniform_int_distribution<unsigned> offset(1, static_cast<unsigned>(n - 1));
    while (offsets.size() < wf_line_words)
      if (const unsigned o = offset(random); std::find(offsets.begin(), offsets.end(), o) == offsets.end())
        offsets.push_back(o);
    const auto d_order = wf_upload(drawn), d_offsets = wf_upload(offsets);
    wf_link_walk<<<static_cast<int>((n * wf_line_words + 255) / 256), 256>>>(words, d_order->data, n,
                                                                            d_offsets->data);
    wf_sync_kernel("linking a side's walk");
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
  wf_one_block_per_sm(wf_walk, prop);
  wf_buffer<unsigned> sink(static_cast<std::size_t>(sms) * threads);
  wf_warm_walk<<<sms, threads, smem>>>(words, d_lines->data, d_first->data, d_count->data, sink.data);
  wf_sync_kernel("warming the walk's lines at home");
  wf_buffer<wf_window> windows(sms);
  wf_walk<<<sms, 32, smem>>>(words, d_start->data, static_cast<unsigned>(random()), wf_walk_steps, sink.data,
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
  std::vector<wf_window> windows;
  const auto measure = [&](std::size_t bytes) {
    const wf_walk_point point = wf_walk_working_set(homes, whole, words, bytes, random, prop);
    windows.insert(windows.end(), point.windows.begin(), point.windows.end());
    wf_print_curve_point(point.bytes, point.cycles_per_step);
    return point;
  };
  double first = 0, estimate = 0;
  bool missed = false;
  for (const std::size_t bytes : small_sizes) {
    const wf_walk_point point = measure(bytes);
    if (first == 0)
      first = point.cycles_per_step;
    if (!missed && point.cycles_per_step <= first * (1 + wf_hit_tolerance))
      estimate = point.bytes;
    else
      missed = true;
  }
  if (!missed)
    wf_fail("no working set of the sweep fell out of the cache");
  for (const double times : {2.0, 2.5, 3.0, 4.0, 5.0, 6.0})
    measure(static_cast<std::size_t>(std::llround(estimate * times / (1 << 20))) << 20);
  wf_print_result(estimate / value_unit_bytes, wf_clock_mhz(windows));
}
