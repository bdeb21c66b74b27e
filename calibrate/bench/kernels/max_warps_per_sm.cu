// max_warps_per_sm (warps): blocks of 8 warps with no shared memory and few registers (so warps,
// not blocks, registers or shared memory, are the limit on an SM) spin for 50 us each, 32 blocks
// per SM launched, several times what fits. The most blocks seen running at once on any SM (their
// %smid and %globaltimer intervals) x 8 is the value; cudaDeviceProp's maxThreadsPerMultiProcessor
// / warpSize is printed beside it.
#include "common.cuh"

#include <map>

constexpr int warps_per_block = 8;
constexpr unsigned long long spin_ns = 50000;
constexpr int blocks_per_sm = 32;

struct residency {
  unsigned sm;
  unsigned long long begin_ns, end_ns;
  wf_window window;
};

__global__ void __launch_bounds__(warps_per_block * 32) hold_warps(residency* out) {
  const wf_window_start start = wf_open_window();
  while (wf_globaltimer_ns() - start.ns < spin_ns) {
  }
  const wf_window closed = wf_close_window(start);
  __syncthreads(); // the block's end: every warp has spun its time
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
  const int blocks = blocks_per_sm * prop.multiProcessorCount;
  wf_buffer<residency> out(blocks);
  for (int run = 0; run < 2; ++run) { // the first run warms up
    hold_warps<<<blocks, warps_per_block * 32>>>(out.data);
    wf_sync_kernel("the warp holders");
  }
  const std::vector<residency> measured = out.to_host();
  const int at_once = most_at_once(measured);
  if (at_once <= 0)
    wf_fail("no block was seen resident");
  std::vector<wf_window> windows;
  for (const auto& r : measured)
    windows.push_back(r.window);
  std::printf("# cudaDeviceProp: %d threads per SM / warp size %d\n", prop.maxThreadsPerMultiProcessor,
              prop.warpSize);
  wf_print_result(static_cast<double>(at_once) * warps_per_block, wf_clock_mhz(windows));
}
