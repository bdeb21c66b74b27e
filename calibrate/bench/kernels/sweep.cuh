#pragma once
// A working-set sweep for a cache's size: the latency of a warmed pointer-chase ring at each
// size (kernels/chase.cuh), printed as curve lines (curve_x = bytes, curve_y = cycles per step).
// The engine's knee detection (calibrate/results/knee.hpp) decides the size from the curve; the
// program's own value is a first estimate: the largest working set whose latency stays within
// `hit_tolerance` of the smallest one's.

#include "chase.cuh"

constexpr double wf_hit_tolerance = 0.10; // 10% over the smallest working set's latency

template <bool CacheAll>
static void wf_size_sweep(const std::vector<std::size_t>& sizes_bytes, int steps,
                          double value_unit_bytes) {
  std::vector<wf_window> windows;
  double first = 0, estimate = 0;
  bool missed = false;
  for (const std::size_t bytes : sizes_bytes) {
    const wf_chase_result r = wf_chase_working_set<CacheAll>(bytes, steps);
    windows.push_back(r.window);
    wf_print_curve_point(static_cast<double>(bytes), r.cycles_per_step);
    if (first == 0)
      first = r.cycles_per_step;
    if (!missed && r.cycles_per_step <= first * (1 + wf_hit_tolerance))
      estimate = static_cast<double>(bytes);
    else
      missed = true;
  }
  if (!missed)
    wf_fail("no working set of the sweep fell out of the cache");
  wf_print_result(estimate / value_unit_bytes, wf_clock_mhz(windows));
}

// Every SM chasing its own ring at once: the working set split into one ring per SM (each a
// contiguous 1/SMs slice, visited in its own random order), each block warming its slice with
// all its threads, then its thread 0 chasing `steps` steps in a clock64 window. One block per SM
// (more than half an SM's shared memory reserved), so the SMs of both halves of a partitioned L2
// (Hopper, Ampere) each fill their own partition: the curve steps where the whole L2 is full,
// where one SM's chase (wf_size_sweep) steps at the share of it one SM's data gets.
__global__ void wf_chase_every_sm_kernel(const unsigned long long* nodes, std::size_t slice_nodes,
                                         const unsigned* order, int steps,
                                         unsigned long long* sink, wf_window* windows) {
  const std::size_t first = blockIdx.x * slice_nodes;
  unsigned long long seen = 0;
  for (std::size_t i = threadIdx.x; i < slice_nodes; i += blockDim.x)
    seen ^= wf_chase_load<false>(reinterpret_cast<unsigned long long>(nodes + (first + i) * wf_node_slots));
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long p = reinterpret_cast<unsigned long long>(nodes + order[first] * wf_node_slots);
    const wf_window_start start = wf_open_window();
#pragma unroll 32
    for (int s = 0; s < steps; ++s)
      p = wf_chase_load<false>(p);
    windows[blockIdx.x] = wf_close_window(start);
    seen ^= p;
  }
  sink[blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x] = seen;
}

struct wf_every_sm_point {
  double bytes = 0;           // the working set chased: the SMs' rings together
  double cycles_per_step = 0; // the mean over the SMs
  std::vector<wf_window> windows;
};

static wf_every_sm_point wf_chase_every_sm(std::size_t bytes, int steps, const cudaDeviceProp& prop) {
  const int sms = prop.multiProcessorCount, threads = 256;
  const std::size_t slice = bytes / wf_node_bytes / sms;
  if (slice < 2)
    wf_fail("a working set needs at least two nodes per SM");
  const std::size_t count = slice * sms;
  wf_buffer<unsigned long long> nodes(count * wf_node_slots);
  const std::vector<unsigned> order = wf_shuffled_order(count, sms);
  wf_buffer<unsigned> device_order(count);
  WF_CHECK(cudaMemcpy(device_order.data, order.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
  wf_link_ring<<<static_cast<int>((count + 255) / 256), 256>>>(nodes.data, device_order.data, count, slice);
  wf_sync_kernel("linking the rings");
  auto kernel = wf_chase_every_sm_kernel;
  const std::size_t smem = wf_one_block_per_sm(kernel, prop);
  wf_buffer<unsigned long long> sink(static_cast<std::size_t>(sms) * threads);
  wf_buffer<wf_window> windows(sms);
  kernel<<<sms, threads, smem>>>(nodes.data, slice, device_order.data, steps, sink.data, windows.data);
  wf_sync_kernel("the every-SM pointer chase");
  wf_every_sm_point point;
  point.bytes = static_cast<double>(count * wf_node_bytes);
  point.windows = windows.to_host();
  double sum = 0;
  for (const auto& window : point.windows) {
    if (window.cycles <= 0)
      wf_fail("an SM's chase measured no cycles");
    sum += static_cast<double>(window.cycles) / steps;
  }
  point.cycles_per_step = sum / sms;
  return point;
}

// The every-SM sweep: curve lines (curve_x = the bytes chased, curve_y = mean cycles per step),
// then the first estimate as wf_size_sweep makes it.
static void wf_size_sweep_every_sm(const std::vector<std::size_t>& sizes_bytes, int steps,
                                   double value_unit_bytes) {
  const cudaDeviceProp prop = wf_device();
  std::vector<wf_window> windows;
  double first = 0, estimate = 0;
  bool missed = false;
  for (const std::size_t bytes : sizes_bytes) {
    const wf_every_sm_point point = wf_chase_every_sm(bytes, steps, prop);
    windows.insert(windows.end(), point.windows.begin(), point.windows.end());
    wf_print_curve_point(point.bytes, point.cycles_per_step);
    if (first == 0)
      first = point.cycles_per_step;
    if (!missed && point.cycles_per_step <= first * (1 + wf_hit_tolerance))
      estimate = point.bytes;
    else
      missed = true;
  }
  if (!missed)
    wf_fail("no working set of the sweep fell out of the cache");
  wf_print_result(estimate / value_unit_bytes, wf_clock_mhz(windows));
}
