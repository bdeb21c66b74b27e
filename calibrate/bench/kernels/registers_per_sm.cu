// registers_per_sm (32-bit registers): blocks of one warp whose threads keep more values live
// than fit in 255 registers (so each thread is given the most a thread can have) spin for 50 us
// each, many more blocks than fit at once. Registers are then the only limit on how many blocks
// an SM holds (no shared memory; far below the block and warp limits), so the most blocks seen
// running at once on any SM (their %smid and %globaltimer intervals), times the registers one
// block is given (32 x the per-thread count rounded up to the allocation unit of 8), is the file.
#include "common.cuh"

#include <map>

constexpr int live_values = 300;            // > 255: the compiler uses every register it may
constexpr unsigned long long spin_ns = 50000; // each block's residency, ns
constexpr int blocks_per_sm = 24;           // launched; several times what can fit

struct residency {
  unsigned sm;                      // %smid
  unsigned long long begin_ns, end_ns; // %globaltimer at the block's start and end
  wf_window window;
};

__global__ void __launch_bounds__(32, 1)
    hold_registers(const float* seed, float* sink, residency* out) {
  float v[live_values];
#pragma unroll
  for (int i = 0; i < live_values; ++i)
    v[i] = seed[i];
  const wf_window_start start = wf_open_window();
  while (wf_globaltimer_ns() - start.ns < spin_ns) {
#pragma unroll
    for (int i = 0; i < live_values; ++i)
      v[i] = fmaf(v[i], 0.999f, 0.001f * i);
  }
  const wf_window closed = wf_close_window(start);
  float sum = 0;
#pragma unroll
  for (int i = 0; i < live_values; ++i)
    sum += v[i];
  sink[blockIdx.x * 32 + threadIdx.x] = sum;
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    out[blockIdx.x] = {sm, start.ns, start.ns + closed.ns, closed};
  }
}

// The most intervals of one SM that overlap at any instant.
static int most_at_once(const std::vector<residency>& all) {
  std::map<unsigned, std::vector<std::pair<unsigned long long, int>>> events; // per SM
  for (const auto& r : all) {
    events[r.sm].push_back({r.begin_ns, +1});
    events[r.sm].push_back({r.end_ns, -1}); // an end sorts before a begin at the same instant
  }
  int most = 0;
  for (auto& [sm, list] : events) {
    std::sort(list.begin(), list.end());
    int now = 0;
    for (const auto& e : list)
      most = std::max(most, now += e.second);
  }
  return most;
}

int main() {
  const cudaDeviceProp prop = wf_device();
  cudaFuncAttributes attributes{};
  WF_CHECK(cudaFuncGetAttributes(&attributes, hold_registers));
  std::printf("# registers per thread: %d\n", attributes.numRegs);
  const int blocks = blocks_per_sm * prop.multiProcessorCount;
  wf_buffer<float> seed(live_values), sink(static_cast<std::size_t>(blocks) * 32);
  wf_buffer<residency> out(blocks);
  for (int run = 0; run < 2; ++run) { // the first run warms up
    hold_registers<<<blocks, 32>>>(seed.data, sink.data, out.data);
    wf_sync_kernel("the register holders");
  }
  const std::vector<residency> measured = out.to_host();
  const int at_once = most_at_once(measured);
  const int per_thread = (attributes.numRegs + 7) / 8 * 8;
  if (at_once <= 0 || per_thread <= 0)
    wf_fail("no block was seen resident");
  std::vector<wf_window> windows;
  for (const auto& r : measured)
    windows.push_back(r.window);
  wf_print_result(static_cast<double>(at_once) * 32 * per_thread, wf_clock_mhz(windows));
}
