#pragma once
// Cache capacities by random walks whose every step is, to the cache, an independent reference,
// so past the capacity the hit rate is the capacity over the working set, whatever the cache's
// set mapping and replacement (l1_size on one SM, l2_size on every SM: l2_walk.cuh).
//
// Why not a ring: a chase round a ring reuses each line only after the whole working set. A
// set-associative cache then misses in its fullest sets long before it is full, and by how much
// depends on its ways and its replacement: on an H100 a homed ring's latency left the L2 level
// at 42 of 50 MiB and the rise was 38 MiB wide; the L1 ring's at 224 of 256 KiB. The capacity
// cannot be read off such a curve without a model of the sets.
//
// A walk that takes its next line uniformly from the working set, independently of the lines it
// saw, hits with probability (lines of the set held) / (lines of the set). Once the set is large
// enough that every set of the cache is full of it, with F the set's bytes and C the capacity:
//     hit rate = C / F,   cycles per step = L_miss - (L_miss - L_hit) x C / F,
// a straight line in 1 / F. The engine fits that line over the sweep's largest working sets
// (calibrate/results/capacity_fit.hpp, catalog size_from = "miss_fit").
//
// The walk: the working set's lines in a random order p; line p holds in its 32 words the lines
// p + o_k (mod n) for 32 random distinct offsets o_k, so every line has 32 ways in and 32 out, a
// walk visits all lines equally often, and the next line is unrelated to the last ones (a revisit
// needs offsets that sum to 0 mod n). A warp walks: its 32 lanes load the line (one 128-byte
// request, so the whole line is filled), and the warp takes the word a per-warp xorshift picks
// (SHFL.IDX) as the next line. y = one clock64 window / steps: the shuffle and the address
// arithmetic are in it at every size (they add the same cycles to hits and misses).
//
// Before its timed steps a warp walks as many untimed: the cache then holds what the walk keeps,
// not the warm-up's order or what the warm-up read besides. Without that, and with the L2 walk's
// list of lines read through the L2 like data, an H100's bytes held still grew from 46.9 MiB at
// 64 MiB to 49.3 at 180 and the fit read 48.7; with both, they are flat at 50.1 from 100 to
// 300 MiB (reckoned with the fitted miss level: calibrate/results/capacity_fit.hpp says why a
// line alone cannot prove it).
//
// The sizes: the program's own list, then, where its first estimate (the last size within 10% of
// the first) is close to the capacity, multiples of it; the fit reads the sizes past twice the
// capacity. The value printed is that first estimate; the engine's fit decides.

#include "chase.cuh"
#include "sweep.cuh" // wf_first_estimate: the first estimate's rule, as the ring sweeps'

#include <memory>

constexpr unsigned wf_line_words = wf_line_bytes / sizeof(unsigned); // 32: one per lane
constexpr int wf_walk_steps = 8192; // timed, per walking warp; as many again untimed before

// Lane `lane` loads word `lane` of line `line`: the warp's 32 loads are one 128-byte request,
// kept in L1 (CacheAll: a plain ld.global, as the chases' (chase.cuh); an explicit .ca compiles to
// an SM-scope strong load) or in L2 only (ld.global.cg).
template <bool CacheAll>
__device__ __forceinline__ unsigned wf_walk_load(const unsigned* words, unsigned line, unsigned lane) {
  unsigned word;
  const unsigned* address = words + static_cast<std::size_t>(line) * wf_line_words + lane;
  if (CacheAll)
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(word) : "l"(address));
  else
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(word) : "l"(address));
  return word;
}

// A warp walks `steps` steps from `line`, its xorshift state in `pick` (every lane calls it with
// the same values; never 0); the last line reached.
template <bool CacheAll>
__device__ __forceinline__ unsigned wf_walk_from(const unsigned* words, unsigned line, unsigned& pick,
                                                 int steps, unsigned lane) {
#pragma unroll 16
  for (int s = 0; s < steps; ++s) {
    const unsigned word = wf_walk_load<CacheAll>(words, line, lane);
    pick ^= pick << 13;
    pick ^= pick >> 17;
    pick ^= pick << 5;
    line = __shfl_sync(0xffffffffu, word, pick % 32);
  }
  return line;
}

// A warp walks wf_walk_steps untimed (the cache then holds what the walk keeps, not the warm-up's
// order or whatever the warm-up read besides), then wf_walk_steps in one clock64 window.
template <bool CacheAll>
__device__ __forceinline__ wf_window wf_timed_walk(const unsigned* words, unsigned line, unsigned seed,
                                                   unsigned lane, unsigned& last) {
  unsigned pick = seed | 1u;
  line = wf_walk_from<CacheAll>(words, line, pick, wf_walk_steps, lane);
  const wf_window_start opened = wf_open_window();
  last = wf_walk_from<CacheAll>(words, line, pick, wf_walk_steps, lane);
  return wf_close_window(opened);
}

// Line order[p] gets the lines order[(p + offsets[k]) mod n] in its words k < 32.
__global__ void wf_link_walk(unsigned* words, const unsigned* order, std::size_t n, const unsigned* offsets) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n * wf_line_words)
    return;
  const std::size_t p = i / wf_line_words;
  const unsigned k = static_cast<unsigned>(i % wf_line_words);
  words[static_cast<std::size_t>(order[p]) * wf_line_words + k] = order[(p + offsets[k]) % n];
}

static std::unique_ptr<wf_buffer<unsigned>> wf_upload(const std::vector<unsigned>& host) {
  auto device = std::make_unique<wf_buffer<unsigned>>(host.size());
  WF_CHECK(cudaMemcpy(device->data, host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  return device;
}

// `n` of `lines` drawn at random, in a random order (the first n of a Fisher-Yates shuffle).
static std::vector<unsigned> wf_draw_lines(std::vector<unsigned> lines, std::size_t n, std::mt19937& random) {
  if (n < 2 * wf_line_words || n > lines.size())
    wf_fail("a walk needs more lines than the buffer holds, or at least 64");
  for (std::size_t i = 0; i < n; ++i)
    std::swap(lines[i], lines[i + std::uniform_int_distribution<std::size_t>(0, lines.size() - 1 - i)(random)]);
  lines.resize(n);
  return lines;
}

// Links the walk over `order` (line indices into `words`, in their walk order).
static void wf_link_lines(unsigned* words, const std::vector<unsigned>& order, std::mt19937& random) {
  const std::size_t n = order.size();
  std::vector<unsigned> offsets;
  std::uniform_int_distribution<unsigned> offset(1, static_cast<unsigned>(n - 1));
  while (offsets.size() < wf_line_words)
    if (const unsigned o = offset(random); std::find(offsets.begin(), offsets.end(), o) == offsets.end())
      offsets.push_back(o);
  const auto d_order = wf_upload(order), d_offsets = wf_upload(offsets);
  wf_link_walk<<<static_cast<int>((n * wf_line_words + 255) / 256), 256>>>(words, d_order->data, n, d_offsets->data);
  wf_sync_kernel("linking a walk");
}

struct wf_walk_point {
  double bytes = 0;           // the working set: lines x 128 bytes
  double cycles_per_step = 0; // the mean over the walking warps
  std::vector<wf_window> windows;
};

// The sweep: `measure(bytes)` for each of `sizes`, then for each of `times_estimate` times the
// first estimate (rounded to `round_to_bytes`); curve lines, then that estimate as the value.
template <class Measure>
static void wf_walk_sweep(const std::vector<std::size_t>& sizes, const std::vector<double>& times_estimate,
                          double value_unit_bytes, std::size_t round_to_bytes, Measure measure) {
  std::vector<wf_window> windows;
  const auto point_at = [&](std::size_t bytes) {
    const wf_walk_point point = measure(bytes);
    windows.insert(windows.end(), point.windows.begin(), point.windows.end());
    wf_print_curve_point(point.bytes, point.cycles_per_step);
    return point;
  };
  wf_first_estimate estimate;
  for (const std::size_t bytes : sizes) {
    const wf_walk_point point = point_at(bytes);
    estimate.add(point.bytes, point.cycles_per_step);
  }
  if (!estimate.missed)
    wf_fail("no working set of the sweep fell out of the cache");
  for (const double times : times_estimate)
    point_at(static_cast<std::size_t>(std::llround(estimate.bytes * times / round_to_bytes)) * round_to_bytes);
  wf_print_result(estimate.bytes / value_unit_bytes, wf_clock_mhz(windows));
}
