#pragma once
// Pointer chase through global memory: one thread follows a ring of nodes, each load's address
// being the value the last load returned, so the loads are strictly serial and the cycles per
// step are the latency of wherever the ring lives (L1, L2 or DRAM).
//
// Nodes are 32 bytes apart (one L1/L2 sector each), so a ring of n nodes occupies n x 32 bytes:
// the working set is dense, whatever the line size. Its order is random, drawn afresh by every
// process (std::random_device; the seed is printed), so each trial places the ring anew and the
// trials' spread includes placement. `CacheAll` picks a plain ld.global (cached in L1; an
// explicit ld.global.ca compiles to an SM-scope strong load instead) or ld.global.cg (L2 only).
//
// Two ways to time the chase, both reported by the latency benchmarks:
//   bulk     (wf_chase_mode::bulk): one clock64 window over thousands of steps, 32 steps
//            unrolled per loop trip: cycles / steps is the load-to-use latency with the loop and
//            clock reads amortised away (the "overhead removed" figure, the value).
//   clocked  (wf_chase_mode::clocked): clock64 before and after every step, the loaded value
//            stored to shared memory between the two reads, as the published fine-grained
//            p-chase tables time it (Jia et al., arXiv:1804.06826; Luo et al., arXiv:2402.13499);
//            the median step: the "raw chase" figure, which includes a clock read and a store.
//   index    (wf_index_chase): j = A[j] over 32-bit indices, one clock64 window around N
//            dependent hops of a loop that is not unrolled, as published latency tables' loops
//            are written (for (i = 0; i < n; i++) j = A[j]): every hop turns the index into an
//            address (base + 4 x j) before its load and runs the loop's counter, compare and
//            branch; cycles / hops, loop and address arithmetic included: the "index chase"
//            figure, the one to set beside those tables.
#include "common.cuh"

#include <numeric>
#include <random>

enum class wf_chase_mode { bulk, clocked };

constexpr int wf_clocked_steps = 512; // per clocked chase: a median over this many steps

constexpr std::size_t wf_node_bytes = 32;
constexpr std::size_t wf_node_slots = wf_node_bytes / sizeof(unsigned long long);
constexpr std::size_t wf_line_bytes = 128; // an L1 / L2 line: four nodes (sectors)
constexpr std::size_t wf_line_nodes = wf_line_bytes / wf_node_bytes;

template <bool CacheAll>
__device__ __forceinline__ unsigned long long wf_chase_load(unsigned long long address) {
  if (CacheAll)
    asm volatile("ld.global.u64 %0, [%0];" : "+l"(address)); // default: cached in L1
  else
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(address));
  return address;
}

// nodes[order[i]] -> nodes[order[i + 1]] within each run of `ring_length` entries of `order`,
// the last of a run back to its first: count / ring_length rings (one when they are equal).
__global__ void wf_link_ring(unsigned long long* nodes, const unsigned* order, std::size_t count,
                             std::size_t ring_length) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= count)
    return;
  const std::size_t first = i / ring_length * ring_length;
  const std::size_t next = order[first + (i - first + 1) % ring_length];
  nodes[order[i] * wf_node_slots] = reinterpret_cast<unsigned long long>(nodes + next * wf_node_slots);
}

// One block: when `warm`, every thread first loads each node of the ring's span (so the whole
// working set is resident where CacheAll puts it); then thread 0 chases `steps` steps, timed.
template <bool CacheAll>
__global__ void wf_chase_kernel(const unsigned long long* nodes, std::size_t span_nodes,
                                unsigned start_node, int steps, bool warm,
                                unsigned long long* sink, wf_window* window) {
  unsigned long long seen = 0;
  if (warm)
    for (std::size_t i = threadIdx.x; i < span_nodes; i += blockDim.x)
      seen ^= wf_chase_load<CacheAll>(reinterpret_cast<unsigned long long>(nodes + i * wf_node_slots));
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long p = reinterpret_cast<unsigned long long>(nodes + start_node * wf_node_slots);
    const wf_window_start start = wf_open_window();
#pragma unroll 32
    for (int s = 0; s < steps; ++s)
      p = wf_chase_load<CacheAll>(p);
    *window = wf_close_window(start);
    seen ^= p;
  }
  sink[threadIdx.x] = seen;
}

// The clocked chase (the published tables' method): as wf_chase_kernel, but thread 0 reads
// clock64 before and after each of wf_clocked_steps steps, storing the loaded value to shared
// memory between the two reads (so the second read waits for the load), and writes each step's
// cycles to `step_cycles`.
template <bool CacheAll>
__global__ void wf_chase_clocked_kernel(const unsigned long long* nodes, std::size_t span_nodes,
                                        unsigned start_node, bool warm, unsigned long long* sink,
                                        long long* step_cycles, wf_window* window) {
  __shared__ unsigned long long seen_at[wf_clocked_steps];
  __shared__ long long cycles_at[wf_clocked_steps];
  unsigned long long seen = 0;
  if (warm)
    for (std::size_t i = threadIdx.x; i < span_nodes; i += blockDim.x)
      seen ^= wf_chase_load<CacheAll>(reinterpret_cast<unsigned long long>(nodes + i * wf_node_slots));
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long p = reinterpret_cast<unsigned long long>(nodes + start_node * wf_node_slots);
    const wf_window_start start = wf_open_window();
    for (int k = 0; k < wf_clocked_steps; ++k) {
      const long long before = clock64();
      p = wf_chase_load<CacheAll>(p);
      seen_at[k] = p;
      const long long after = clock64();
      cycles_at[k] = after - before;
    }
    *window = wf_close_window(start);
    for (int k = 0; k < wf_clocked_steps; ++k) {
      step_cycles[k] = cycles_at[k];
      seen ^= seen_at[k];
    }
  }
  sink[threadIdx.x] = seen;
}

// This process's ring seed: a fresh one per process (each trial places its rings anew).
static unsigned wf_ring_seed() {
  static const unsigned seed = [] {
    const unsigned drawn = std::random_device{}();
    std::printf("# ring seed: %u\n", drawn);
    return drawn;
  }();
  return seed;
}

// A random visiting order of all `count` nodes, as `rings` rings of count / rings nodes each
// (ring r visits only nodes [r x length, (r + 1) x length)).
static std::vector<unsigned> wf_shuffled_order(std::size_t count, std::size_t rings = 1) {
  std::vector<unsigned> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 random(wf_ring_seed());
  const std::size_t length = count / rings;
  for (std::size_t r = 0; r < rings; ++r)
    std::shuffle(order.begin() + r * length, order.begin() + (r + 1) * length, random);
  return order;
}

// `count` distinct nodes spread over a span of `span` nodes (a power of two) in a pseudo-random
// order: i -> a bijective mix of i within [0, span) (multiplying by an odd number and xor-ing in
// the high bits are each invertible modulo a power of two), so no node repeats and consecutive
// nodes are not a fixed stride apart. Where in the span they fall moves with the ring seed.
static std::vector<unsigned> wf_scattered_order(std::size_t count, std::size_t span) {
  const unsigned long long mask = span - 1;
  unsigned bits = 0;
  while ((1ull << bits) < span)
    ++bits;
  std::vector<unsigned> order(count);
  const unsigned long long offset = wf_ring_seed(); // a fresh placement per process
  for (std::size_t i = 0; i < count; ++i) {
    unsigned long long x = (i + offset) & mask;
    for (int round = 0; round < 3; ++round) {
      x = (x * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) & mask;
      x ^= x >> (bits / 2 + 1);
    }
    order[i] = static_cast<unsigned>(x);
  }
  return order;
}

struct wf_chase_result {
  double cycles_per_step = 0; // cycles: bulk, the window over the steps; clocked, the median step
  wf_window window;           // the timed chase
};

// Links `order` into a ring inside `nodes` (span_nodes nodes), optionally flushes the L2 by
// writing `flush_bytes` elsewhere, then runs the chase kernel of `mode` (warming first when
// `warm`; a clocked chase takes wf_clocked_steps steps whatever `steps` says).
template <bool CacheAll>
static wf_chase_result wf_chase(wf_buffer<unsigned long long>& nodes, std::size_t span_nodes,
                                const std::vector<unsigned>& order, int steps, bool warm,
                                std::size_t flush_bytes = 0,
                                wf_chase_mode mode = wf_chase_mode::bulk) {
  wf_buffer<unsigned> device_order(order.size());
  WF_CHECK(cudaMemcpy(device_order.data, order.data(), order.size() * sizeof(unsigned),
                      cudaMemcpyHostToDevice));
  const int threads = 256;
  const int blocks = static_cast<int>((order.size() + threads - 1) / threads);
  wf_link_ring<<<blocks, threads>>>(nodes.data, device_order.data, order.size(), order.size());
  wf_sync_kernel("linking the ring");
  if (flush_bytes > 0) {
    wf_buffer<unsigned char> flush(flush_bytes); // its zero-fill writes evict the ring from L2
    wf_sync_kernel("flushing the L2");
  }
  wf_buffer<unsigned long long> sink(1024);
  wf_buffer<wf_window> window(1);
  wf_chase_result result;
  if (mode == wf_chase_mode::bulk) {
    auto kernel = wf_chase_kernel<CacheAll>;
    // L1 benchmarks want all of the unified L1/shared storage as L1: carve out no shared memory.
    WF_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    kernel<<<1, 1024>>>(nodes.data, span_nodes, order[0], steps, warm, sink.data, window.data);
    wf_sync_kernel("the pointer chase");
    result.window = window.to_host()[0];
    if (result.window.cycles <= 0 || steps <= 0)
      wf_fail("the pointer chase measured no cycles");
    result.cycles_per_step = static_cast<double>(result.window.cycles) / steps;
    return result;
  }
  auto kernel = wf_chase_clocked_kernel<CacheAll>;
  WF_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  wf_buffer<long long> step_cycles(wf_clocked_steps);
  kernel<<<1, 1024>>>(nodes.data, span_nodes, order[0], warm, sink.data, step_cycles.data,
                      window.data);
  wf_sync_kernel("the clocked pointer chase");
  result.window = window.to_host()[0];
  std::vector<double> cycles;
  for (const long long c : step_cycles.to_host())
    cycles.push_back(static_cast<double>(c));
  result.cycles_per_step = wf_median(cycles);
  if (result.cycles_per_step <= 0)
    wf_fail("the clocked pointer chase measured no cycles");
  return result;
}

// The latency of a warmed ring over `bytes` of memory.
template <bool CacheAll>
static wf_chase_result wf_chase_working_set(std::size_t bytes, int steps,
                                            wf_chase_mode mode = wf_chase_mode::bulk) {
  const std::size_t count = bytes / wf_node_bytes;
  if (count < 2)
    wf_fail("a working set needs at least two nodes");
  wf_buffer<unsigned long long> nodes(count * wf_node_slots);
  return wf_chase<CacheAll>(nodes, count, wf_shuffled_order(count), steps, true, 0, mode);
}

// The index chase: 32-bit words, node i's index word at word i x wf_node_slots x 2 (32 bytes
// apart, as the pointer chase's nodes), each holding the word index of the next node of `order`.
template <bool CacheAll>
__device__ __forceinline__ unsigned wf_index_load(const unsigned* words, unsigned j) {
  unsigned next;
  if (CacheAll)
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(next) : "l"(words + j));
  else
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(next) : "l"(words + j));
  return next;
}

constexpr std::size_t wf_node_words = wf_node_bytes / sizeof(unsigned);

__global__ void wf_link_index_ring(unsigned* words, const unsigned* order, std::size_t count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count)
    words[order[i] * wf_node_words] = order[(i + 1) % count] * static_cast<unsigned>(wf_node_words);
}

// Thread 0 runs `steps` hops j = words[j] in one clock64 window; the loop is kept rolled (one
// index-to-address computation, load, counter, compare and branch per hop).
template <bool CacheAll>
__global__ void wf_index_chase_kernel(const unsigned* words, std::size_t span_nodes, unsigned start,
                                      int steps, bool warm, unsigned* sink, wf_window* window) {
  unsigned seen = 0;
  if (warm)
    for (std::size_t i = threadIdx.x; i < span_nodes; i += blockDim.x)
      seen ^= wf_index_load<CacheAll>(words, static_cast<unsigned>(i * wf_node_words));
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned j = start;
    const wf_window_start begin = wf_open_window();
#pragma unroll 1
    for (int s = 0; s < steps; ++s)
      j = wf_index_load<CacheAll>(words, j);
    *window = wf_close_window(begin);
    seen ^= j;
  }
  sink[threadIdx.x] = seen;
}

// The index chase over `order` within a span of `span_nodes` nodes: cycles per hop over `steps`
// hops. Warmed first when `warm`; the L2 flushed by writing `flush_bytes` elsewhere when non-zero.
template <bool CacheAll>
static double wf_index_chase(std::size_t span_nodes, const std::vector<unsigned>& order, int steps,
                             bool warm, std::size_t flush_bytes = 0) {
  wf_buffer<unsigned> words(span_nodes * wf_node_words);
  wf_buffer<unsigned> device_order(order.size());
  WF_CHECK(cudaMemcpy(device_order.data, order.data(), order.size() * sizeof(unsigned),
                      cudaMemcpyHostToDevice));
  wf_link_index_ring<<<static_cast<int>((order.size() + 255) / 256), 256>>>(words.data, device_order.data,
                                                                           order.size());
  wf_sync_kernel("linking the index ring");
  if (flush_bytes > 0) {
    wf_buffer<unsigned char> flush(flush_bytes);
    wf_sync_kernel("flushing the L2");
  }
  auto kernel = wf_index_chase_kernel<CacheAll>;
  WF_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  wf_buffer<unsigned> sink(1024);
  wf_buffer<wf_window> window(1);
  kernel<<<1, 1024>>>(words.data, span_nodes, order[0] * static_cast<unsigned>(wf_node_words), steps,
                      warm, sink.data, window.data);
  wf_sync_kernel("the index chase");
  const wf_window measured = window.to_host()[0];
  if (measured.cycles <= 0 || steps <= 0)
    wf_fail("the index chase measured no cycles");
  return static_cast<double>(measured.cycles) / steps;
}

// A latency benchmark's three figures: the value (bulk: overhead removed) and, beside it, the
// raw clocked pointer chase (RESULT raw_chase_cycles) and the clocked index chase (RESULT
// index_chase_cycles, the figure the published tables compare with).
static void wf_print_latency(const wf_chase_result& bulk, const wf_chase_result& clocked,
                             double index_cycles) {
  wf_print_result(bulk.cycles_per_step, wf_clock_mhz({bulk.window}));
  std::printf("RESULT: raw_chase_cycles=%.6g\n", clocked.cycles_per_step);
  std::printf("RESULT: index_chase_cycles=%.6g\n", index_cycles);
}
