#pragma once
// Pointer chase through global memory: one thread follows a ring of nodes, each load's address
// being the value the last load returned, so the loads are strictly serial and the cycles per
// step are the latency of wherever the ring lives (L1, L2 or DRAM).
//
// Nodes are 32 bytes apart (one L1/L2 sector each), so a ring of n nodes occupies n x 32 bytes:
// the working set is dense, whatever the line size. Its order is random (a fixed seed), so no
// two steps share a line by design. `CacheAll` picks a plain ld.global (cached in L1; an explicit
// ld.global.ca compiles to an SM-scope strong load instead) or ld.global.cg (L2 only).

#include "common.cuh"

#include <numeric>
#include <random>

constexpr std::size_t wf_node_bytes = 32;
constexpr std::size_t wf_node_slots = wf_node_bytes / sizeof(unsigned long long);

template <bool CacheAll>
__device__ __forceinline__ unsigned long long wf_chase_load(unsigned long long address) {
  if (CacheAll)
    asm volatile("ld.global.u64 %0, [%0];" : "+l"(address)); // default: cached in L1
  else
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(address));
  return address;
}

// nodes[order[i]] -> nodes[order[i + 1]], the last back to the first.
__global__ void wf_link_ring(unsigned long long* nodes, const unsigned* order, std::size_t count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= count)
    return;
  const std::size_t next = order[(i + 1) % count];
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

// A random visiting order of all `count` nodes (fixed seed: every trial chases the same ring).
static std::vector<unsigned> wf_shuffled_order(std::size_t count) {
  std::vector<unsigned> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 random(12345);
  std::shuffle(order.begin(), order.end(), random);
  return order;
}

// `count` distinct nodes spread over a span of `span` nodes (a power of two) in a pseudo-random
// order: i -> a bijective mix of i within [0, span) (multiplying by an odd number and xor-ing in
// the high bits are each invertible modulo a power of two), so no node repeats and consecutive
// nodes are not a fixed stride apart.
static std::vector<unsigned> wf_scattered_order(std::size_t count, std::size_t span) {
  const unsigned long long mask = span - 1;
  unsigned bits = 0;
  while ((1ull << bits) < span)
    ++bits;
  std::vector<unsigned> order(count);
  for (std::size_t i = 0; i < count; ++i) {
    unsigned long long x = i;
    for (int round = 0; round < 3; ++round) {
      x = (x * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) & mask;
      x ^= x >> (bits / 2 + 1);
    }
    order[i] = static_cast<unsigned>(x);
  }
  return order;
}

struct wf_chase_result {
  double cycles_per_step = 0; // cycles
  wf_window window;           // the timed chase
};

// Links `order` into a ring inside `nodes` (span_nodes nodes), optionally flushes the L2 by
// writing `flush_bytes` elsewhere, then runs the chase kernel (warming first when `warm`).
template <bool CacheAll>
static wf_chase_result wf_chase(wf_buffer<unsigned long long>& nodes, std::size_t span_nodes,
                                const std::vector<unsigned>& order, int steps, bool warm,
                                std::size_t flush_bytes = 0) {
  wf_buffer<unsigned> device_order(order.size());
  WF_CHECK(cudaMemcpy(device_order.data, order.data(), order.size() * sizeof(unsigned),
                      cudaMemcpyHostToDevice));
  const int threads = 256;
  const int blocks = static_cast<int>((order.size() + threads - 1) / threads);
  wf_link_ring<<<blocks, threads>>>(nodes.data, device_order.data, order.size());
  wf_sync_kernel("linking the ring");
  if (flush_bytes > 0) {
    wf_buffer<unsigned char> flush(flush_bytes); // its zero-fill writes evict the ring from L2
    wf_sync_kernel("flushing the L2");
  }
  wf_buffer<unsigned long long> sink(1024);
  wf_buffer<wf_window> window(1);
  auto kernel = wf_chase_kernel<CacheAll>;
  // L1 benchmarks want all of the unified L1/shared storage as L1: carve out no shared memory.
  WF_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  kernel<<<1, 1024>>>(nodes.data, span_nodes, order[0], steps, warm, sink.data, window.data);
  wf_sync_kernel("the pointer chase");
  wf_chase_result result;
  result.window = window.to_host()[0];
  if (result.window.cycles <= 0 || steps <= 0)
    wf_fail("the pointer chase measured no cycles");
  result.cycles_per_step = static_cast<double>(result.window.cycles) / steps;
  return result;
}

// The latency of a warmed ring over `bytes` of memory.
template <bool CacheAll>
static wf_chase_result wf_chase_working_set(std::size_t bytes, int steps) {
  const std::size_t count = bytes / wf_node_bytes;
  if (count < 2)
    wf_fail("a working set needs at least two nodes");
  wf_buffer<unsigned long long> nodes(count * wf_node_slots);
  return wf_chase<CacheAll>(nodes, count, wf_shuffled_order(count), steps, true);
}
