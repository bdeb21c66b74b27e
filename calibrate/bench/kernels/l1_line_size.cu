// l1_line_size (bytes): one warp whose 32 lanes each chase their own 4-node ring, lane l's nodes
// `stride` bytes apart from lane l-1's, all warm in L1 (ld.global, 16 KiB .. 64 KiB in all).
// A warp load costs the L1 one tag lookup per distinct line it touches, so the cycles per step
// grow with the stride until every lane has a line of its own, and stay flat beyond: the value
// is the smallest stride from which the cost no longer grows (within 5%). A cache that only
// charged per 32-byte sector would flatten at 32. Prints the curve (curve_x = stride in bytes).
#include "chase.cuh"

constexpr int ring_rows = 4;         // nodes per lane's ring
constexpr int timed_steps = 4096;    // per stride
constexpr double flat_tolerance = 0.05;

__global__ void lane_chase(unsigned long long* base, unsigned stride, int steps,
                           unsigned long long* sink, wf_window* window) {
  const unsigned lane = threadIdx.x;
  // node (row r, lane l) sits at byte r * 32 * stride + l * stride and holds the next row's node.
  for (int r = 0; r < ring_rows; ++r) {
    char* node = reinterpret_cast<char*>(base) + (r * 32ull + lane) * stride;
    char* next = reinterpret_cast<char*>(base) + (((r + 1) % ring_rows) * 32ull + lane) * stride;
    *reinterpret_cast<unsigned long long*>(node) = reinterpret_cast<unsigned long long>(next);
  }
  __syncwarp();
  __threadfence_block();
  unsigned long long p = reinterpret_cast<unsigned long long>(base) + lane * stride;
  for (int s = 0; s < ring_rows; ++s) // warm: bring every node into L1
    p = wf_chase_load<true>(p);
  __syncwarp();
  const wf_window_start start = wf_open_window();
#pragma unroll 32
  for (int s = 0; s < steps; ++s)
    p = wf_chase_load<true>(p);
  const wf_window closed = wf_close_window(start);
  sink[lane] = p;
  if (lane == 0)
    *window = closed;
}

int main() {
  wf_device();
  const unsigned strides[] = {8, 16, 32, 64, 128, 256, 512};
  wf_buffer<unsigned long long> nodes(ring_rows * 32ull * 512 / sizeof(unsigned long long));
  wf_buffer<unsigned long long> sink(32);
  wf_buffer<wf_window> window(1);
  std::vector<wf_window> windows;
  std::vector<double> cost;
  for (const unsigned stride : strides) {
    for (int run = 0; run < 2; ++run) { // the first run warms up
      lane_chase<<<1, 32>>>(nodes.data, stride, timed_steps, sink.data, window.data);
      wf_sync_kernel("the lane chase");
    }
    windows.push_back(window.to_host()[0]);
    cost.push_back(static_cast<double>(windows.back().cycles) / timed_steps);
    wf_print_curve_point(stride, cost.back());
  }
  double line = 0;
  for (std::size_t i = 0; i + 1 < cost.size() && line == 0; ++i)
    if (cost[i + 1] <= cost[i] * (1 + flat_tolerance) && cost[i] > cost[0] * (1 + flat_tolerance))
      line = strides[i];
  if (line == 0)
    wf_fail("the cost per step never levelled off above the smallest stride's");
  wf_print_result(line, wf_clock_mhz(windows));
}
